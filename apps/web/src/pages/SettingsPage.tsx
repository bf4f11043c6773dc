import { changePasswordSchema } from '@accounts/validators';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorSummary } from '../components/ErrorSummary';
import { PageHeading } from '../components/PageHeading';
import { PasswordField } from '../components/PasswordField';
import { StrengthMeter } from '../components/StrengthMeter';
import { SubmitButton } from '../components/SubmitButton';
import { isUnauthenticated } from '../failure';
import { useForm } from '../forms/useForm';
import { useI18n } from '../i18n';
import { RequireAuth } from '../RequireAuth';
import { useForgetSession, useRealmSettings, type SignedInUser } from '../session';
import { trpc } from '../trpc';

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
  const forgetSession = useForgetSession();
  const changePassword = trpc.account.changePassword.useMutation();
  const [revoked, setRevoked] = useState<number | null>(null);

  const policy = useMemo(() => ({ minLength: passwordPolicy.minLength }), [passwordPolicy.minLength]);
  const context = useMemo(() => ({ name: user.name, email: user.email, realm: realm.slug }), [user.name, user.email, realm.slug]);
  const schema = useMemo(() => changePasswordSchema({ policy, context }), [policy, context]);

  const form = useForm({
    initial: { current_password: '', new_password: '', confirm_password: '' },
    schema,
    submit: async (values) => {
      setRevoked(null);
      try {
        const result = await changePassword.mutateAsync(values);
        form.reset();
        setRevoked(result.otherSessionsRevoked);
      } catch (error) {
        // The session ended elsewhere: sign in again, then come back here.
        if (isUnauthenticated(error)) void forgetSession();
        throw error;
      }
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
      {revoked !== null && <ChangeConfirmation revoked={revoked} />}
      <ErrorSummary entries={form.summary} labels={labels} message={form.formMessage} focusKey={form.failedSubmits} />
      <form noValidate onSubmit={form.onSubmit} aria-busy={form.submitting}>
        {/* Tells password managers which account the new password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={user.email} readOnly hidden />
        <PasswordField form={form} name="current_password" label={labels.current_password} autoComplete="current-password" />
        <PasswordField
          form={form}
          name="new_password"
          label={labels.new_password}
          autoComplete="new-password"
          describedBy={['new-password-checks']}
        >
          <StrengthMeter id="new-password-checks" password={form.values.new_password} policy={policy} context={context} />
        </PasswordField>
        <PasswordField form={form} name="confirm_password" label={labels.confirm_password} autoComplete="new-password" />
        <SubmitButton busy={form.submitting} label={t('settingsSubmit')} busyLabel={t('settingsBusy')} />
      </form>
    </>
  );
}

/** Says the change worked and what it did to other devices; takes focus so it is read out. */
function ChangeConfirmation({ revoked }: { revoked: number }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const others = revoked === 0 ? t('revokedNone') : revoked === 1 ? t('revokedOne') : t('revokedMany', { count: revoked });
  return (
    <div className="success" role="status" tabIndex={-1} ref={ref}>
      <p>{t('passwordChanged')}</p>
      <p className="revoked">{others}</p>
    </div>
  );
}
