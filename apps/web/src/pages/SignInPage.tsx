import { signInSchema } from '@accounts/validators';
import { EmailField } from '../components/EmailField';
import { ErrorSummary } from '../components/ErrorSummary';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { useI18n, type UiKey } from '../i18n';
import { Link, navigate, Redirect, safeNext, useLocation } from '../router';
import { useRealmSettings, useSession, useSetSignedIn } from '../session';
import { trpc } from '../trpc';
import { wasPasswordReset } from './page-state';

/** Why to sign in again, by the page the person was on when their session ended. */
const SIGNED_OUT_REASONS: Record<string, UiKey> = {
  '/settings': 'signedOutToChangePassword',
};

export function SignInPage() {
  const { t } = useI18n();
  const { realm } = useRealmSettings();
  const session = useSession();
  const { search, state } = useLocation();
  const next = safeNext(search.get('next'));
  const expired = search.get('expired') === '1';
  const afterReset = wasPasswordReset(state);
  const setSignedIn = useSetSignedIn();
  const signIn = trpc.account.signIn.useMutation();

  const form = useForm({
    initial: { email: search.get('email') ?? '', password: '' },
    schema: signInSchema,
    whenEmpty: { email: 'emptyEmail', password: 'emptyPassword' },
    submit: async (values) => {
      const { user } = await signIn.mutateAsync(values);
      setSignedIn(user);
      // Replaced, so Back from the page they came for does not return to this form.
      navigate(next, { replace: true });
    },
  });

  if (session.status === 'signed-in') return <Redirect to={next} />;

  const labels = { email: t('fieldEmail'), password: t('fieldPassword') };
  const registerPath = next === '/account' ? '/register' : `/register?next=${encodeURIComponent(next)}`;
  const reason = SIGNED_OUT_REASONS[new URL(next, 'http://local').pathname] ?? 'signedOutToContinue';

  return (
    <>
      <PageHeading>{t('signInTitle')}</PageHeading>
      {afterReset ? (
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
