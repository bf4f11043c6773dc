import '../../security.css';
import { changePasswordSchema } from '@accounts/validators';
import { useMemo } from 'react';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { NewPasswordFields } from '../../components/NewPasswordFields';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { PasskeysLink } from '../../components/PasskeysLink';
import { SubmitButton } from '../../components/SubmitButton';
import { TwoStepLink } from '../../components/TwoStepLink';
import { useForm } from '../../forms/useForm';
import { useNewPassword } from '../../forms/useNewPassword';
import { useI18n } from '../../i18n';
import { usePasswordPageText } from '../../i18n/password-page-strings';
import { RequireAuth } from '../../RequireAuth';
import { formDone } from '../../page-forms';
import { navigate, useHref } from '../../router';
import type { SignedInUser } from '../../session';
import { trpc } from '../../trpc';

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
  const p = usePasswordPageText();
  const changePassword = trpc.account.changePassword.useMutation();
  const utils = trpc.useUtils();
  const href = useHref();
  const rule = useNewPassword(user);
  const schema = useMemo(() => changePasswordSchema(rule), [rule]);

  const form = useForm({
    name: 'changePassword',
    initial: { current_password: '', new_password: '', confirm_password: '' },
    schema,
    whenEmpty: {
      current_password: 'emptyCurrentPassword',
      new_password: 'emptyNewPasswordSettings',
      confirm_password: 'emptyNewPasswordConfirm',
    },
    submit: async (values) => {
      const result = await changePassword.mutateAsync(values);
      // The account page says when the password was last changed: asked again.
      void utils.account.me.invalidate();
      // A new page after the submit is also how password managers notice the change.
      const { to, state } = formDone('changePassword', result, href)!;
      navigate(to, { state });
    },
  });

  const labels = {
    current_password: t('fieldCurrentPassword'),
    new_password: p('fieldNewPassword'),
    confirm_password: p('fieldNewPasswordConfirm'),
  };

  return (
    <>
      <p className="intro">{p('settingsIntro')}</p>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <NewPasswordFields form={form} names={['new_password', 'confirm_password']} labels={labels} rule={rule} />
        <SubmitButton busy={form.submitting} label={p('settingsSubmit')} busyLabel={p('settingsBusy')} />
      </PostForm>
      <p className="switch">
        <TwoStepLink />
      </p>
      <p className="switch">
        <PasskeysLink />
      </p>
    </>
  );
}
