import { signInSchema } from '@accounts/validators';
import { ErrorSummary } from '../components/ErrorSummary';
import { Field } from '../components/Field';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { useI18n } from '../i18n';
import { Link, navigate, Redirect, safeNext, useLocation } from '../router';
import { useRealmSettings, useSession, useSetSignedIn } from '../session';
import { trpc } from '../trpc';

export function SignInPage() {
  const { t } = useI18n();
  const { realm } = useRealmSettings();
  const session = useSession();
  const next = safeNext(useLocation().search.get('next'));
  const setSignedIn = useSetSignedIn();
  const signIn = trpc.account.signIn.useMutation();

  const form = useForm({
    initial: { email: '', password: '' },
    schema: signInSchema,
    submit: async (values) => {
      const { user } = await signIn.mutateAsync(values);
      setSignedIn(user);
      navigate(next);
    },
  });

  if (session.status === 'signed-in') return <Redirect to={next} />;

  const labels = { email: t('fieldEmail'), password: t('fieldPassword') };
  const registerPath = next === '/account' ? '/register' : `/register?next=${encodeURIComponent(next)}`;

  return (
    <>
      <PageHeading>{t('signInTitle')}</PageHeading>
      <p className="intro">{t('signInIntro', { realm: realm.name })}</p>
      <ErrorSummary entries={form.summary} labels={labels} message={form.formMessage} focusKey={form.failedSubmits} />
      <form noValidate onSubmit={form.onSubmit} aria-busy={form.submitting}>
        <Field form={form} name="email" label={labels.email} type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} />
        <PasswordField form={form} name="password" label={labels.password} autoComplete="current-password" />
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </form>
      <p className="switch">
        {t('noAccount')} <Link to={registerPath}>{t('navRegister')}</Link>
      </p>
    </>
  );
}
