import { secondStepSchema, type SecondStepMethod } from '@accounts/validators';
import { useEffect, useRef, useState } from 'react';
import { CodeField, useCodeLabel } from '../../components/CodeField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useFormOutcome } from '../../forms/form-outcome';
import { useForm, type Form } from '../../forms/useForm';
import { useHydrated } from '../../hydrated';
import { useI18n } from '../../i18n';
import { formDone } from '../../page-forms';
import { useHref } from '../../router';
import type { SignedInUser } from '../../session';
import { problemOf, trpc, type Problem } from '../../trpc';
import { usePasskeyPrompt } from '../../usePasskeyPrompt';
import { assertionAnswer, prompt } from '../../webauthn';
import { useSecondStepText } from './strings';

/** The refusals that end the pending sign-in: it expired, or too many wrong codes (with the wait). */
const endedSignIn = (error: unknown): Problem | null => {
  const problem = problemOf(error);
  return problem?.code === 'sign_in_expired' || problem?.code === 'too_many_codes' ? problem : null;
};

/**
 * The tries left after a refusal: what a counted one says (none said: more than two), or, after
 * one that counted nothing (a limit, a code of the wrong shape), as many as before.
 */
const triesLeftAfter = (error: unknown, before: number | undefined) => {
  const problem = problemOf(error);
  const counted =
    problem?.code === 'passkey_rejected' || problem?.errors?.some((e) => e.code === 'code_incorrect') === true;
  return counted ? problem.attemptsLeft : before;
};

/**
 * The sign-in's second step, after a correct password for an account with two-step sign-in, in
 * the ways the account has (`methods`): its passkey first, where it has one; the code from the
 * authenticator app, or a recovery code instead. The pending sign-in is the server's cookie; when
 * it has expired, or too many wrong codes ended it (`onExpired` gets the refusal, with the wait),
 * the person starts again with the password. Once few tries are left, the step says how many.
 * Signed in with a recovery code, the person lands where PAGE_FORMS says (the account page says
 * a code was used), as after the same form posted without scripts.
 */
export function SecondStep({
  email,
  methods,
  onSignedIn,
  onExpired,
  onRestart,
}: {
  /** The address the password step was given (posted along without scripts, for the page shown after). */
  email: string;
  methods: readonly SecondStepMethod[];
  /** Signed in; `to`: where the form's success leads instead of the page's `next`. */
  onSignedIn: (user: SignedInUser, to?: string) => void;
  onExpired: (ended: Problem) => void;
  onRestart: () => void;
}) {
  const s = useSecondStepText();
  const { t } = useI18n();
  const codeLabel = useCodeLabel();
  // Posted without scripts, the refusal the page shows says it too.
  const posted = useFormOutcome('secondStep');
  const [attemptsLeft, setAttemptsLeft] = useState(posted?.problem?.attemptsLeft);
  /** A refusal that leaves the step: its tries left are said beside the code field. */
  const refused = (error: unknown) => setAttemptsLeft((before) => triesLeftAfter(error, before));
  const withPasskey = methods.includes('passkey');
  const withApp = methods.includes('totp');
  const [kind, setKind] = useState<'app' | 'recovery'>(withApp ? 'app' : 'recovery');
  const secondStep = trpc.account.signInSecondStep.useMutation();
  const hydrated = useHydrated();
  const href = useHref();
  const form = useForm({
    name: 'secondStep',
    initial: { code: '' },
    schema: secondStepSchema,
    whenEmpty: { code: kind === 'app' ? 'emptyCode' : 'emptyRecoveryCode' },
    submit: async ({ code }) => {
      try {
        const result = await secondStep.mutateAsync({ code });
        onSignedIn(result.user, formDone('secondStep', result, href)?.to);
      } catch (error) {
        const ended = endedSignIn(error);
        if (ended) return onExpired(ended);
        refused(error);
        throw error;
      }
    },
  });
  // The step takes focus when it appears: its passkey button where the account has one, else the
  // code field, which also takes it when the kind of code changes.
  const changedKind = useRef(false);
  useEffect(() => {
    const first = withPasskey && !changedKind.current ? 'use-passkey' : 'code';
    document.getElementById(first)?.focus();
  }, [kind]); // eslint-disable-line react-hooks/exhaustive-deps

  const app = kind === 'app';
  // Choosing the kind of code needs the app: without scripts the one field takes either.
  const either = withApp && !hydrated;
  const fieldKind = either ? 'either' : kind;
  const labels = { code: codeLabel(fieldKind) };
  const other = () => {
    changedKind.current = true;
    form.reset();
    setKind(app ? 'recovery' : 'app');
  };

  return (
    <div className="second-step">
      {withPasskey && hydrated && (
        <PasskeyStep form={form} onSignedIn={onSignedIn} onExpired={onExpired} onRefused={refused} />
      )}
      <h2>{app ? s('codeStepAppTitle') : s('codeStepRecoveryTitle')}</h2>
      <p className="intro" id="code-help">
        {app ? s('codeStepAppHelp') : s('codeStepRecoveryHelp')}
      </p>
      <ErrorSummary report={form.report} labels={labels} />
      <p className="attempts-left" id="attempts-left" role="status">
        {attemptsLeft !== undefined &&
          (attemptsLeft === 1 ? s('codeStepTryLeft') : s('codeStepTriesLeft', { count: attemptsLeft }))}
      </p>
      <PostForm {...postFormOf(form)} hidden={{ email, methods: methods.join(' ') }}>
        <CodeField
          form={form}
          kind={fieldKind}
          label={labels.code}
          describedBy={attemptsLeft !== undefined ? ['code-help', 'attempts-left'] : ['code-help']}
        />
        {withApp && hydrated && (
          <p>
            <button type="button" className="link-button" onClick={other}>
              {app ? s('useRecoveryCode') : s('useAppCode')}
            </button>
          </p>
        )}
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </PostForm>
      {(!app || either) && <p className="switch">{s('codeStepLost')}</p>}
      <p className="switch">
        {/* Without scripts, the sign-in page itself: its password step again. */}
        <a
          href={href}
          className="link-button"
          onClick={(event) => {
            event.preventDefault();
            onRestart();
          }}
        >
          {s('codeStepRestart')}
        </a>
      </p>
    </div>
  );
}

/**
 * The second step done with one of the account's passkeys: its options for this pending sign-in,
 * the browser's prompt, then the check. The service's refusals go to the code form's summary (one
 * summary on the page); a dismissed prompt is a calm note beside the button.
 */
function PasskeyStep({
  form,
  onSignedIn,
  onExpired,
  onRefused,
}: {
  form: Form<'code'>;
  onSignedIn: (user: SignedInUser) => void;
  onExpired: (ended: Problem) => void;
  onRefused: (error: unknown) => void;
}) {
  const s = useSecondStepText();
  const { t } = useI18n();
  const utils = trpc.useUtils();
  const finish = trpc.passkeys.secondStep.useMutation();
  // A refusal that ends the pending sign-in leaves the step; any other failure is the code form's.
  const { busy, note, ask } = usePasskeyPrompt((error) => {
    const ended = endedSignIn(error);
    if (ended) return onExpired(ended);
    onRefused(error);
    form.failWith(error);
  });

  const confirmWithPasskey = () =>
    ask(async (prompts) => {
      if (!prompts.canUsePasskeys()) return s('codeStepPasskeyUnsupported');
      const options = await utils.client.passkeys.secondStepOptions.mutate({});
      const response = await prompt(() => prompts.askForPasskey(options));
      const { user } = await finish.mutateAsync({ response: assertionAnswer(response) });
      onSignedIn(user);
    });

  return (
    <section className="passkey-step" aria-labelledby="passkey-step-title">
      <h2 id="passkey-step-title">{s('codeStepPasskeyTitle')}</h2>
      <p className="intro">{s('codeStepPasskeyHelp')}</p>
      <button
        type="button"
        id="use-passkey"
        className="primary"
        disabled={busy}
        onClick={() => void confirmWithPasskey()}
      >
        {busy ? t('passkeyWaiting') : s('codeStepPasskeyButton')}
      </button>
      <p className="passkey-note" role="status">
        {note}
      </p>
    </section>
  );
}
