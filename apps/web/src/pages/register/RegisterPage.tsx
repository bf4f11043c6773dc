import { registerSchema } from '@accounts/validators';
import { useMemo, useState } from 'react';
import { EmailField } from '../../components/EmailField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { Field } from '../../components/Field';
import { NewPasswordFields } from '../../components/NewPasswordFields';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { UpstreamProviders, useAddressedReport } from '../../components/UpstreamSignIn';
import { useFormResult } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useNewPassword } from '../../forms/useNewPassword';
import { useI18n } from '../../i18n';
import { usePasswordPageText } from '../../i18n/password-page-strings';
import { formDone } from '../../page-forms';
import { Link, loginPathFor, navigate, Redirect, useHref, useLocation } from '../../router';
import { safeNext } from '@accounts/validators/safe-next';
import { useRealmSettings, useSession, useSetSignedIn } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';

type RegisterResult = RouterOutputs['account']['register'];

export function RegisterPage() {
  const { t } = useI18n();
  const p = usePasswordPageText();
  const { realm } = useRealmSettings();
  const session = useSession();
  const next = safeNext(useLocation().search.get('next'));
  const setSignedIn = useSetSignedIn();
  const register = trpc.account.register.useMutation();
  const href = useHref();
  // Created in a realm that signs in only confirmed addresses: to the mail first.
  const posted = useFormResult<RegisterResult>('register');
  const [confirmFirst, setConfirmFirst] = useState(posted?.emailVerificationRequired ? posted.user.email : null);

  const rule = useNewPassword();
  const schema = useMemo(
    () => registerSchema({ policy: rule.policy, realm: realm.slug, estimator: rule.estimator }),
    [rule, realm.slug],
  );
  const form = useForm({
    name: 'register',
    initial: { name: '', email: '', password: '', password2: '' },
    schema,
    whenEmpty: {
      name: 'emptyName',
      email: 'emptyEmail',
      password: 'emptyNewPassword',
      password2: 'emptyPasswordConfirm',
    },
    keep: ['name', 'email'],
    submit: async (values) => {
      const result = await register.mutateAsync(values);
      if (result.emailVerificationRequired) return setConfirmFirst(result.user.email);
      setSignedIn(result.user);
      // Replaced: Back from the account must not reopen a form for an account that now exists.
      const { to, state } = formDone('register', result, href)!;
      navigate(to, { replace: true, state });
    },
  });

  const report = useAddressedReport(form.report);

  if (session.status === 'signed-in') return <Redirect to={next} />;
  if (confirmFirst !== null)
    return (
      <>
        <PageHeading>{t('registerTitle')}</PageHeading>
        <div className="success" role="status">
          <p>{p('registerConfirmFirst', { email: confirmFirst })}</p>
        </div>
        <p className="switch">
          <Link to={loginPathFor(next)}>{t('navSignIn')}</Link>
        </p>
      </>
    );

  const labels = {
    name: t('fieldName'),
    email: t('fieldEmail'),
    password: t('fieldPassword'),
    password2: p('fieldPasswordConfirm'),
  };
  const { name, email } = form.values;
  const signInPath = next === '/account' ? '/login' : loginPathFor(next);
  const signInWithEmail = `${signInPath}${signInPath.includes('?') ? '&' : '?'}email=${encodeURIComponent(email.trim())}`;

  return (
    <>
      <PageHeading>{t('registerTitle')}</PageHeading>
      <p className="intro">{p('registerIntro', { realm: realm.name })}</p>
      <ErrorSummary report={report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <Field form={form} name="name" label={labels.name} autoComplete="name" />
        <EmailField form={form} label={labels.email} autoComplete="email">
          {form.errorCodeFor('email') === 'email_taken' && (
            <p className="field-action">
              <Link to={signInWithEmail}>{t('signInInstead')}</Link>
              {' · '}
              <Link to={`/forgot-password?email=${encodeURIComponent(email.trim())}`}>{t('forgotLink')}</Link>
            </p>
          )}
        </EmailField>
        <NewPasswordFields
          form={form}
          names={['password', 'password2']}
          labels={labels}
          rule={rule}
          context={{ ...rule.context, name, email }}
        />
        <SubmitButton busy={form.submitting} label={p('registerSubmit')} busyLabel={p('registerBusy')} />
      </PostForm>
      <UpstreamProviders next={next} />
      <p className="switch">
        {p('haveAccount')} <Link to={signInPath}>{t('navSignIn')}</Link>
      </p>
    </>
  );
}
