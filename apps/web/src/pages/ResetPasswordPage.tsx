import { resetPasswordSchema } from '@accounts/validators/account-links';
import { useMemo } from 'react';
import { ErrorSummary } from '../components/ErrorSummary';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { StrengthMeter, strengthLevelId } from '../components/StrengthMeter';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { usePasswordEstimator } from '../forms/usePasswordEstimator';
import { useI18n } from '../i18n';
import { useMailText } from '../i18n/mail-page-strings';
import { Link, navigate } from '../router';
import { useForgetSession, useRealmSettings } from '../session';
import { trpc } from '../trpc';
import type { PasswordReset } from './SignInPage';
import { useLinkToken } from './link-token';

/**
 * The page a reset link opens (loading it uses nothing up): a new password, then every device is
 * signed out, this one too, and the sign-in page asks for the new password.
 */
export function ResetPasswordPage() {
  const { t } = useI18n();
  const m = useMailText();
  const token = useLinkToken('/reset-password');
  return (
    <>
      <PageHeading>{m('resetTitle')}</PageHeading>
      {token ? (
        <ResetForm token={token} />
      ) : (
        <div className="notice">
          <p>{m('resetNoToken')}</p>
          <p>
            <Link to="/forgot-password">{m('resetNewLink')}</Link>
          </p>
        </div>
      )}
    </>
  );
}

function ResetForm({ token }: { token: string }) {
  const { t } = useI18n();
  const m = useMailText();
  const { realm, passwordPolicy } = useRealmSettings();
  const forgetSession = useForgetSession();
  const reset = trpc.email.resetPassword.useMutation();
  const policy = useMemo(() => ({ minLength: passwordPolicy.minLength }), [passwordPolicy.minLength]);
  const context = useMemo(() => ({ realm: realm.slug }), [realm.slug]);
  const estimator = usePasswordEstimator();
  const schema = useMemo(() => resetPasswordSchema({ policy, context, estimator }), [policy, context, estimator]);

  const form = useForm({
    initial: { token, new_password: '', confirm_password: '' },
    schema,
    whenEmpty: { new_password: 'emptyNewPasswordSettings', confirm_password: 'emptyNewPasswordConfirm' },
    submit: async (values) => {
      await reset.mutateAsync(values);
      // This browser's session ended too: forgotten before the sign-in page looks at it.
      void forgetSession();
      const state: PasswordReset = { passwordReset: true };
      navigate('/login', { replace: true, state });
    },
  });
  const invalidLink = form.report.entries.some((e) => e.field === 'token');
  const labels = { token: m('fieldResetLink'), new_password: t('fieldNewPassword'), confirm_password: t('fieldNewPasswordConfirm') };

  return (
    <>
      <p className="intro">{m('resetIntro')}</p>
      <ErrorSummary report={form.report} labels={labels} />
      {invalidLink && (
        <p className="reset-new-link">
          <Link to="/forgot-password">{m('resetNewLink')}</Link>
        </p>
      )}
      <form method="post" noValidate onSubmit={form.onSubmit} aria-busy={form.submitting}>
        <PasswordField
          form={form}
          name="new_password"
          label={labels.new_password}
          autoComplete="new-password"
          describedBy={[strengthLevelId('new-password-checks'), 'new-password-checks']}
        >
          <StrengthMeter id="new-password-checks" password={form.values.new_password} policy={policy} context={context} estimator={estimator} />
        </PasswordField>
        <PasswordField form={form} name="confirm_password" label={labels.confirm_password} autoComplete="new-password" />
        <SubmitButton busy={form.submitting} label={m('resetSubmit')} busyLabel={m('resetBusy')} />
      </form>
    </>
  );
}
