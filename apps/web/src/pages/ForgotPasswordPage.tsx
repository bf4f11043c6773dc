import { forgotPasswordSchema } from '@accounts/validators/account-links';
import { useState } from 'react';
import { ErrorSummary } from '../components/ErrorSummary';
import { EmailField } from '../components/EmailField';
import { PageHeading } from '../components/PageHeading';
import { postFormOf, PostForm } from '../components/PostForm';
import { SubmitButton } from '../components/SubmitButton';
import { useFormSuccess } from '../forms/form-outcome';
import { useForm } from '../forms/useForm';
import { useI18n } from '../i18n';
import { useMailText } from '../i18n/mail-page-strings';
import { Link, useLocation } from '../router';
import { useRealmSettings } from '../session';
import { trpc } from '../trpc';

/** Asks for a reset link. The answer never says whether an account has the address. */
export function ForgotPasswordPage() {
  const { t } = useI18n();
  const m = useMailText();
  const { realm } = useRealmSettings();
  const { search } = useLocation();
  // Posted without scripts, the page the server answers with says the same as after a submit here.
  const posted = useFormSuccess('forgotPassword');
  const [sentTo, setSentTo] = useState<string | null>(() => (posted ? (posted.email ?? '').trim() : null));
  const forgot = trpc.email.forgotPassword.useMutation();
  const form = useForm({
    name: 'forgotPassword',
    initial: { email: search.get('email') ?? '' },
    schema: forgotPasswordSchema,
    whenEmpty: { email: 'emptyEmail' },
    submit: async (values) => {
      await forgot.mutateAsync(values);
      setSentTo(values.email.trim());
    },
  });
  const labels = { email: t('fieldEmail') };

  return (
    <>
      <PageHeading>{m('forgotTitle')}</PageHeading>
      {sentTo !== null ? (
        <div className="success" role="status">
          <p className="forgot-sent">{m('forgotSent', { email: sentTo })}</p>
          <p>
            <Link to="/login">{m('backToSignIn')}</Link>
          </p>
        </div>
      ) : (
        <>
          <p className="intro">{m('forgotIntro', { realm: realm.name })}</p>
          <ErrorSummary report={form.report} labels={labels} />
          <PostForm {...postFormOf(form)}>
            <EmailField form={form} label={labels.email} autoComplete="username" />
            <SubmitButton busy={form.submitting} label={m('forgotSubmit')} busyLabel={m('forgotBusy')} />
          </PostForm>
          <p className="switch">
            <Link to="/login">{m('backToSignIn')}</Link>
          </p>
        </>
      )}
    </>
  );
}
