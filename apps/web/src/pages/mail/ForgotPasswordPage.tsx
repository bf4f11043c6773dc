import { humanWait } from '@accounts/validators';
import { forgotPasswordSchema } from '@accounts/validators/account-links';
import { useState } from 'react';
import { ErrorSummary } from '../../components/ErrorSummary';
import { EmailField } from '../../components/EmailField';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useFormResult, useFormSuccess } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { useMailText } from './strings';
import { Link, useLocation } from '../../router';
import { useRealmSettings } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';

/** What was asked for: the address, and when another link may be asked for if none went this time. */
interface Sent {
  email: string;
  retryAfter?: number;
}

/**
 * Asks for a reset link. The answer never says whether an account has the address: an unknown
 * one is held back by the cap on links exactly like a known one, so "ask again in …" says nothing either.
 */
export function ForgotPasswordPage() {
  const m = useMailText();
  const { realm } = useRealmSettings();
  const { search } = useLocation();
  return (
    <>
      <PageHeading>{m('forgotTitle')}</PageHeading>
      <ResetLinkForm email={search.get('email') ?? ''} intro={m('forgotIntro', { realm: realm.name })} />
    </>
  );
}

/**
 * The form that asks for a reset link (`email` filled in), then what was asked: on the page
 * that asks, and on a reset link's page when the link no longer works.
 */
export function ResetLinkForm({ email, intro }: { email: string; intro: string }) {
  const { t, locale } = useI18n();
  const m = useMailText();
  // Posted without scripts, the page the server answers with says the same as after a submit here.
  const posted = useFormSuccess('forgotPassword');
  const postedResult = useFormResult<RouterOutputs['email']['forgotPassword']>('forgotPassword');
  const [sent, setSent] = useState<Sent | null>(() =>
    posted ? { email: (posted.email ?? '').trim(), retryAfter: postedResult?.retryAfter } : null,
  );
  const forgot = trpc.email.forgotPassword.useMutation();
  const form = useForm({
    name: 'forgotPassword',
    initial: { email },
    schema: forgotPasswordSchema,
    whenEmpty: { email: 'emptyEmail' },
    submit: async (values) => {
      const { retryAfter } = await forgot.mutateAsync(values);
      setSent({ email: values.email.trim(), retryAfter });
    },
  });
  const labels = { email: t('fieldEmail') };

  return sent !== null ? (
    <div className="success" role="status">
      <p className="forgot-sent">
        {sent.retryAfter === undefined
          ? m('forgotSent', { email: sent.email })
          : m('forgotHeld', { email: sent.email, wait: humanWait(sent.retryAfter, locale) })}
      </p>
      <p>
        <Link to="/login">{m('backToSignIn')}</Link>
      </p>
    </div>
  ) : (
    <>
      <p className="intro">{intro}</p>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <EmailField form={form} label={labels.email} autoComplete="username" />
        <SubmitButton busy={form.submitting} label={m('forgotSubmit')} busyLabel={m('forgotBusy')} />
      </PostForm>
      <p className="switch">
        <Link to="/login">{m('backToSignIn')}</Link>
      </p>
    </>
  );
}
