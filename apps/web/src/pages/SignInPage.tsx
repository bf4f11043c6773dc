import { message, signInSchema } from '@accounts/validators';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { EmailField } from '../components/EmailField';
import { ErrorSummary } from '../components/ErrorSummary';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { Loading } from '../components/Status';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { useI18n, type UiKey } from '../i18n';
import { Link, navigate, Redirect, safeNext, useLocation } from '../router';
import { useRealmSettings, useSession, useSetSignedIn, type SignedInUser } from '../session';
import { problemOf, trpc } from '../trpc';
import { wasPasswordReset } from './page-state';

// The second step loads when an account asks for it: most sign-ins never do.
const SecondStep = lazy(() => import('./SecondStep').then((m) => ({ default: m.SecondStep })));

/** Why to sign in again, by the page the person was on when their session ended. */
const SIGNED_OUT_REASONS: Record<string, UiKey> = {
  '/settings': 'signedOutToChangePassword',
};

/**
 * Where the sign-in is: the password, or the code of an account with two-step sign-in. Back at
 * the password, `back` says how: the code step expired (or too many wrong codes ended it), or the
 * person chose to start again.
 */
type Step = { name: 'password'; email: string; back?: 'expired' | 'restart' } | { name: 'code'; email: string };

export function SignInPage() {
  const { t } = useI18n();
  const session = useSession();
  const { search } = useLocation();
  const next = safeNext(search.get('next'));
  const setSignedIn = useSetSignedIn();
  const [step, setStep] = useState<Step>({ name: 'password', email: search.get('email') ?? '' });

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
            onSignedIn={signedIn}
            onExpired={() => setStep({ name: 'password', email: step.email, back: 'expired' })}
            onRestart={() => setStep({ name: 'password', email: step.email, back: 'restart' })}
          />
        </Suspense>
      ) : (
        <PasswordStep
          email={step.email}
          back={step.back}
          next={next}
          onSignedIn={signedIn}
          onSecondStep={(email) => setStep({ name: 'code', email })}
        />
      )}
    </>
  );
}

function PasswordStep({
  email,
  back,
  next,
  onSignedIn,
  onSecondStep,
}: {
  email: string;
  back?: 'expired' | 'restart';
  next: string;
  onSignedIn: (user: SignedInUser) => void;
  onSecondStep: (email: string) => void;
}) {
  const { locale, t } = useI18n();
  const { realm } = useRealmSettings();
  const { search, state } = useLocation();
  const expired = search.get('expired') === '1';
  const afterReset = wasPasswordReset(state);
  const signIn = trpc.account.signIn.useMutation();
  // Back from the code step by choice: the form it replaced had focus, so the address takes it.
  useEffect(() => {
    if (back === 'restart') document.getElementById('email')?.focus();
  }, [back]);

  const form = useForm({
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
        if (problemOf(error)?.code === 'second_factor_required') onSecondStep(values.email);
        else throw error;
      }
    },
  });

  const labels = { email: t('fieldEmail'), password: t('fieldPassword') };
  const registerPath = next === '/account' ? '/register' : `/register?next=${encodeURIComponent(next)}`;
  const reason = SIGNED_OUT_REASONS[new URL(next, 'http://local').pathname] ?? 'signedOutToContinue';

  return (
    <>
      {back === 'expired' ? (
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
      <form method="post" noValidate onSubmit={(event) => void form.onSubmit(event)} aria-busy={form.submitting}>
        <EmailField form={form} label={labels.email} autoComplete="username" />
        <PasswordField form={form} name="password" label={labels.password} autoComplete="current-password" />
        <p>
          <Link to="/forgot-password">{t('forgotLink')}</Link>
        </p>
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </form>
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
