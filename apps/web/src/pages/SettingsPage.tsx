import { changePasswordSchema } from '@accounts/validators';
import { useMemo } from 'react';
import { ErrorSummary } from '../components/ErrorSummary';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { StrengthMeter, strengthLevelId } from '../components/StrengthMeter';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { usePasswordEstimator } from '../forms/usePasswordEstimator';
import { useI18n } from '../i18n';
import { RequireAuth } from '../RequireAuth';
import { navigate } from '../router';
import { useRealmSettings, type SignedInUser } from '../session';
import { trpc } from '../trpc';
import type { PasswordChanged } from './AccountPage';

export function SettingsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('settingsTitle')}</PageHeading>
      <RequireAuth>{(user) => <ChangePasswordForm user={user} />}</RequireAuth>
    </>
  );
}

function ChangePasswordForm({ user }: { user: SignedInUser }) {
  const { t } = useI18n();
  const { realm, passwordPolicy } = useRealmSettings();
  const changePassword = trpc.account.changePassword.useMutation();

  const policy = useMemo(() => ({ minLength: passwordPolicy.minLength }), [passwordPolicy.minLength]);
  const context = useMemo(() => ({ name: user.name, email: user.email, realm: realm.slug }), [user.name, user.email, realm.slug]);
  const estimator = usePasswordEstimator();
  const schema = useMemo(() => changePasswordSchema({ policy, context, estimator }), [policy, context, estimator]);

  const form = useForm({
    initial: { current_password: '', new_password: '', confirm_password: '' },
    schema,
    whenEmpty: { current_password: 'emptyCurrentPassword', new_password: 'emptyNewPasswordSettings', confirm_password: 'emptyNewPasswordConfirm' },
    submit: async (values) => {
      const result = await changePassword.mutateAsync(values);
      // A new page after the submit is also how password managers notice the change.
      const state: PasswordChanged = { passwordChanged: { otherSessionsRevoked: result.otherSessionsRevoked } };
      navigate('/account', { state });
    },
  });

  const labels = {
    current_password: t('fieldCurrentPassword'),
    new_password: t('fieldNewPassword'),
    confirm_password: t('fieldNewPasswordConfirm'),
  };

  return (
    <>
      <p className="intro">{t('settingsIntro')}</p>
      <ErrorSummary report={form.report} labels={labels} />
      <form method="post" noValidate onSubmit={form.onSubmit} aria-busy={form.submitting}>
        {/* Tells password managers which account the new password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={user.email} readOnly hidden />
        <PasswordField form={form} name="current_password" label={labels.current_password} autoComplete="current-password" />
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
        <SubmitButton busy={form.submitting} label={t('settingsSubmit')} busyLabel={t('settingsBusy')} />
      </form>
    </>
  );
}
