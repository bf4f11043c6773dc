import { message, signInSchema, type SecondStepMethod } from '@accounts/validators';
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { EmailField } from '../../components/EmailField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PageHeading } from '../../components/PageHeading';
import { PasswordField } from '../../components/PasswordField';
import { Loading } from '../../components/Status';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { WordedError } from '../../failure';
import { useFormOutcome } from '../../forms/form-outcome';
import { useForm, type Form } from '../../forms/useForm';
import { useHydrated } from '../../hydrated';
import { createTranslator, useI18n, type UiKey } from '../../i18n';
import type { PromptKey } from '../../i18n/prompt-strings';
import type { FormOutcome } from '../../page-data';
import { Link, navigate, Redirect, useLocation } from '../../router';
import { safeNext } from '../../safe-next';
import { useRealmSettings, useSession, useSetSignedIn, type SignedInUser } from '../../session';
import { problemOf, trpc, type Problem } from '../../trpc';
import { assertionAnswer, prompt, PromptDismissed, PromptFailed } from '../../webauthn';
import { wasPasswordReset } from '../page-state';

// The second step loads when an account asks for it: most sign-ins never do.
const SecondStep = lazy(() => import('./SecondStep').then((m) => ({ default: m.SecondStep })));

/** Why to sign in again, by the page the person was on when their session ended. */
const SIGNED_OUT_REASONS: Record<string, UiKey> = {
  '/settings': 'signedOutToChangePassword',
};

/**
 * Where the sign-in is: the password, or the second step of an account with two-step sign-in (its
 * ways: a passkey, the app's code, a recovery code). Back at the password, `back` says how: the
 * second step expired, too many wrong codes ended it (`wait`: seconds until this device may sign
 * in again), or the person chose to start again.
 */
type Step =
  | { name: 'password'; email: string; back?: 'expired' | 'too_many_codes' | 'restart'; wait?: number }
  | { name: 'code'; email: string; methods: SecondStepMethod[] };

/** Back at the password because the second step's refusal ended the pending sign-in. */
const endedStep = (email: string, ended: Problem): Step =>
  ended.code === 'too_many_codes' && ended.retryAfter !== undefined
    ? { name: 'password', email, back: 'too_many_codes', wait: ended.retryAfter }
    : { name: 'password', email, back: 'expired' };

/** The ways of a second step as the server listed them; an answer without them means the app's code or a recovery code. */
const methodsOf = (listed: readonly string[] | undefined): SecondStepMethod[] => {
  const known = (listed ?? []).filter((m): m is SecondStepMethod => ['passkey', 'totp', 'recovery_code'].includes(m));
  return known.length > 0 ? known : ['totp', 'recovery_code'];
};

/**
 * Where a sign-in posted without scripts stands: the password was right and the account asks for
 * its second step; or that step was refused (a wrong code: again; expired: back to the password).
 */
function postedStep(password: FormOutcome | null, second: FormOutcome | null): Step | null {
  if (password?.problem?.code === 'second_factor_required')
    return { name: 'code', email: password.values.email ?? '', methods: methodsOf(password.problem.methods) };
  if (!second?.problem) return null;
  const email = second.values.email ?? '';
  if (second.problem.code === 'sign_in_expired' || second.problem.code === 'too_many_codes')
    return endedStep(email, second.problem);
  return { name: 'code', email, methods: methodsOf(second.values.methods?.split(' ')) };
}

export function SignInPage() {
  const { t } = useI18n();
  const session = useSession();
  const { search } = useLocation();
  const next = safeNext(search.get('next'));
  const setSignedIn = useSetSignedIn();
  // Posted without scripts: the step the server's answer leads to.
  const passwordStep = useFormOutcome('signIn');
  const secondStep = useFormOutcome('secondStep');
  const [step, setStep] = useState<Step>(
    () => postedStep(passwordStep, secondStep) ?? { name: 'password', email: search.get('email') ?? '' },
  );

  if (session.status === 'signed-in') return <Redirect to={next} />;

  const signedIn = (user: SignedInUser) => {
    setSignedIn(user);
    // Replaced, so Back from the page they came for does not return to this form.
    navigate(next, { replace: true });
  };

  return (
    <>
      <PageHeading>{t('signInTitle')}</PageHeading>
      {step.name === 'code' ? (
        <Suspense fallback={<Loading />}>
          <SecondStep
            email={step.email}
            methods={step.methods}
            onSignedIn={signedIn}
            onExpired={(ended) => setStep(endedStep(step.email, ended))}
            onRestart={() => setStep({ name: 'password', email: step.email, back: 'restart' })}
          />
        </Suspense>
      ) : (
        <PasswordStep
          email={step.email}
          back={step.back}
          wait={step.wait}
          next={next}
          onSignedIn={signedIn}
          onSecondStep={(email, methods) => setStep({ name: 'code', email, methods })}
        />
      )}
    </>
  );
}

function PasswordStep({
  email,
  back,
  wait,
  next,
  onSignedIn,
  onSecondStep,
}: {
  email: string;
  back?: 'expired' | 'too_many_codes' | 'restart';
  wait?: number;
  next: string;
  onSignedIn: (user: SignedInUser) => void;
  onSecondStep: (email: string, methods: SecondStepMethod[]) => void;
}) {
  const { locale, t } = useI18n();
  const { realm } = useRealmSettings();
  const { search, state } = useLocation();
  const expired = search.get('expired') === '1';
  const afterReset = wasPasswordReset(state);
  const signIn = trpc.account.signIn.useMutation();
  const hydrated = useHydrated();
  // Back from the code step by choice: the form it replaced had focus, so the address takes it.
  useEffect(() => {
    if (back === 'restart') document.getElementById('email')?.focus();
  }, [back]);

  const form = useForm({
    name: 'signIn',
    initial: { email, password: '' },
    schema: signInSchema,
    whenEmpty: { email: 'emptyEmail', password: 'emptyPassword' },
    submit: async (values) => {
      try {
        const { user } = await signIn.mutateAsync(values);
        onSignedIn(user);
      } catch (error) {
        // The password was right; the account asks for its second step (the server keeps the
        // pending sign-in in a cookie of its own).
        const problem = problemOf(error);
        if (problem?.code === 'second_factor_required') onSecondStep(values.email, methodsOf(problem.methods));
        else throw error;
      }
    },
  });
  const passkey = usePasskeySignIn(form, onSignedIn);

  const labels = { email: t('fieldEmail'), password: t('fieldPassword') };
  const registerPath = next === '/account' ? '/register' : `/register?next=${encodeURIComponent(next)}`;
  const reason = SIGNED_OUT_REASONS[new URL(next, 'http://local').pathname] ?? 'signedOutToContinue';

  return (
    <>
      {back === 'too_many_codes' ? (
        <SecondStepExpired text={message('too_many_codes', locale, { retryAfter: wait })} />
      ) : back === 'expired' ? (
        <SecondStepExpired text={message('sign_in_expired', locale)} />
      ) : afterReset ? (
        <div className="success password-reset" role="status">
          <p>{t('passwordResetSignIn')}</p>
        </div>
      ) : expired ? (
        <div className="notice">
          <p>{t(reason)}</p>
        </div>
      ) : (
        <p className="intro">{t('signInIntro', { realm: realm.name })}</p>
      )}
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <EmailField form={form} label={labels.email} autoComplete="username webauthn" />
        <PasswordField form={form} name="password" label={labels.password} autoComplete="current-password" />
        <p>
          <Link to="/forgot-password">{t('forgotLink')}</Link>
        </p>
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </PostForm>
      {/* A passkey needs the app (WebAuthn is a script API): without scripts the button is absent. */}
      {hydrated && (
        <div className="passkey-sign-in">
          <button type="button" className="secondary" disabled={passkey.busy} onClick={() => void passkey.signIn()}>
            {passkey.busy ? t('passkeyWaiting') : t('passkeySignIn')}
          </button>
          <p className="passkey-note" role="status">
            {passkey.note}
          </p>
        </div>
      )}
      <p className="switch">
        {t('noAccount')} <Link to={registerPath}>{t('navRegister')}</Link>
      </p>
    </>
  );
}

/** Why the password is asked again: takes focus (the code form it replaces had it), so it is read out. */
function SecondStepExpired({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="notice sign-in-expired" tabIndex={-1} ref={ref}>
      <p>{text}</p>
    </div>
  );
}

/** The passkey code, loaded once the sign-in page runs (or its button is used), apart from the first scripts. */
const passkeyPrompts = () => import('../../passkey-prompt');

/**
 * Signing in with a passkey alone (a discoverable credential: no address typed first), by the
 * button or from the browser's autofill on the address field (conditional mediation, started once
 * when the form appears where the browser offers it). The autofill waits quietly: its failures
 * are said only once the person chose a passkey there. The button's prompt replaces the
 * autofill's; leaving the form ends whichever is open. Failures of the service go to the form's
 * summary; a prompt the person dismissed is a calm note beside the button.
 */
function usePasskeySignIn(form: Form<'email' | 'password'>, onSignedIn: (user: SignedInUser) => void) {
  const { locale } = useI18n();
  const utils = trpc.useUtils();
  const finishSignIn = trpc.passkeys.signIn.useMutation();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  const finish = async (response: AuthenticationResponseJSON) => {
    const { user } = await finishSignIn.mutateAsync({ response: assertionAnswer(response) });
    onSignedIn(user);
  };
  // The autofill's answer comes whenever the person picks a passkey: it finishes with this render's handlers.
  const latest = useRef({ finish, failWith: form.failWith, setBusy });
  latest.current = { finish, failWith: form.failWith, setBusy };

  useEffect(() => {
    let live = true;
    let end: (() => void) | undefined;
    void (async () => {
      let response: AuthenticationResponseJSON | null = null;
      try {
        const prompts = await passkeyPrompts();
        end = prompts.endPasskeyPrompts;
        response = await prompts.passkeyFromAutofill(
          () => utils.client.passkeys.signInOptions.mutate(),
          () => live,
        );
      } catch {
        // The code could not load: the button says so when it is used.
      }
      if (!response || !live) return;
      const { finish, failWith, setBusy } = latest.current;
      setBusy(true);
      try {
        await finish(response);
      } catch (error) {
        failWith(error);
      } finally {
        setBusy(false);
      }
    })();
    return () => {
      live = false;
      end?.();
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  const signIn = async () => {
    setNote(null);
    setBusy(true);
    try {
      const prompts = await passkeyPrompts();
      // What the prompt ended with, in the words that came with it.
      const say = (key: PromptKey) => createTranslator(prompts.PROMPT_STRINGS)(locale, key);
      try {
        if (!prompts.canUsePasskeys()) {
          setNote(say('passkeyUnsupported'));
          return;
        }
        const options = await utils.client.passkeys.signInOptions.mutate();
        // Starting this prompt ends the autofill's (one WebAuthn request at a time).
        await finish(await prompt(() => prompts.askForPasskey(options)));
      } catch (error) {
        if (error instanceof PromptDismissed) setNote(say('passkeyCancelled'));
        else if (error instanceof PromptFailed) form.failWith(new WordedError(say('passkeyDeviceFailed')));
        else throw error;
      }
    } catch (error) {
      form.failWith(error);
    } finally {
      setBusy(false);
    }
  };

  return { busy, note, signIn };
}
