import { resetPasswordSchema } from '@accounts/validators/account-links';
import { useMemo } from 'react';
import { ErrorSummary } from '../../components/ErrorSummary';
import { NewPasswordFields } from '../../components/NewPasswordFields';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useForm } from '../../forms/useForm';
import { useNewPassword } from '../../forms/useNewPassword';
import { usePasswordPageText } from '../../i18n/password-page-strings';
import { useMailText } from './strings';
import { formDone } from '../../page-forms';
import { Link, navigate, useHref } from '../../router';
import { useForgetSession, useRealmSettings } from '../../session';
import { trpc } from '../../trpc';
import { CheckedLink } from './CheckedLink';
import { ResetLinkForm } from './ForgotPasswordPage';
import { LinkPage } from './LinkPage';

/**
 * The page a reset link opens (loading it uses nothing up): a link that no longer works says so
 * at once, with the form for a new one; a working one asks for a new password, then every device
 * is signed out, this one too, and the sign-in page asks for the new password, the address filled in.
 */
export function ResetPasswordPage() {
  const m = useMailText();
  const { realm } = useRealmSettings();
  const noToken = (
    <div className="notice">
      <p>{m('resetNoToken')}</p>
      <p>
        <Link to="/forgot-password">{m('resetNewLink')}</Link>
      </p>
    </div>
  );
  return (
    <LinkPage title={m('resetTitle')} path="/reset-password" noToken={noToken}>
      {(token) => (
        <CheckedLink
          purpose="reset_password"
          token={token}
          forms={['resetPassword']}
          stale={(link) => (
            <section aria-labelledby="new-link">
              <h2 id="new-link">{m('linkNewTitle')}</h2>
              <ResetLinkForm email={link.email ?? ''} intro={m('forgotIntro', { realm: realm.name })} />
            </section>
          )}
        >
          <ResetForm token={token} />
        </CheckedLink>
      )}
    </LinkPage>
  );
}

function ResetForm({ token }: { token: string }) {
  const p = usePasswordPageText();
  const m = useMailText();
  const forgetSession = useForgetSession();
  const reset = trpc.email.resetPassword.useMutation();
  const href = useHref();
  const rule = useNewPassword();
  const schema = useMemo(() => resetPasswordSchema(rule), [rule]);

  const form = useForm({
    name: 'resetPassword',
    initial: { token, new_password: '', confirm_password: '' },
    schema,
    whenEmpty: { new_password: 'emptyNewPasswordSettings', confirm_password: 'emptyNewPasswordConfirm' },
    submit: async (values) => {
      const result = await reset.mutateAsync(values);
      // This browser's session ended too: forgotten before the sign-in page looks at it.
      void forgetSession();
      const { to, state } = formDone('resetPassword', result, href)!;
      navigate(to, { replace: true, state });
    },
  });
  const invalidLink = form.report.entries.some((e) => e.field === 'token');
  const labels = {
    token: m('fieldResetLink'),
    new_password: p('fieldNewPassword'),
    confirm_password: p('fieldNewPasswordConfirm'),
  };

  return (
    <>
      <p className="intro">{m('resetIntro')}</p>
      <ErrorSummary report={form.report} labels={labels} />
      {invalidLink && (
        <p className="reset-new-link">
          <Link to="/forgot-password">{m('resetNewLink')}</Link>
        </p>
      )}
      {/* The link's token goes with the form: once the app runs, the address no longer has it. */}
      <PostForm {...postFormOf(form)} hidden={{ token }}>
        <NewPasswordFields form={form} names={['new_password', 'confirm_password']} labels={labels} rule={rule} />
        <SubmitButton busy={form.submitting} label={m('resetSubmit')} busyLabel={m('resetBusy')} />
      </PostForm>
    </>
  );
}
