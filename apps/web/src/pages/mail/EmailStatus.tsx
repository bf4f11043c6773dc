import { message } from '@accounts/validators';
import type { FormEvent } from 'react';
import { useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { useMailText } from './strings';
import type { SignedInUser } from '../../session';
import { problemOf, trpc, type Problem, type RouterOutputs } from '../../trpc';
import { PostForm } from '../../components/PostForm';

/**
 * Whether the account's address is confirmed, and a way to get the link again when it is not
 * (unless `offersResend` is false: the page offers it elsewhere, and says there how it went).
 */
export function EmailStatus({ user, offersResend = true }: { user: SignedInUser; offersResend?: boolean }) {
  const { locale } = useI18n();
  const m = useMailText();
  const resend = trpc.email.resendVerification.useMutation();
  // Asked without scripts: the page the server answers with says how it went, as after a click here.
  const posted = useFormOutcome('resendVerification');
  if (user.emailVerified) return <span className="email-status email-verified"> ({m('emailVerified')})</span>;
  if (!offersResend) return <span className="email-status email-unverified"> ({m('emailUnverified')})</span>;
  const fresh = resend.isIdle;
  const done =
    resend.data ??
    (fresh && posted && !posted.problem ? (posted.result as RouterOutputs['email']['resendVerification']) : null);
  const problem: Problem | null = resend.error ? problemOf(resend.error) : fresh ? (posted?.problem ?? null) : null;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!resend.isPending) resend.mutate();
  };
  return (
    <span className="email-status email-unverified">
      {' '}
      ({m('emailUnverified')}){' '}
      {done ? (
        <span role="status" className="resend-done">
          {done.alreadyVerified ? m('resendAlready') : m('resendDone', { email: user.email })}
        </span>
      ) : (
        <PostForm name="resendVerification" onSubmit={onSubmit} busy={resend.isPending} className="inline-form">
          <button type="submit" className="link-button resend-verification" disabled={resend.isPending}>
            {resend.isPending ? m('resendBusy') : m('resendLink')}
          </button>
        </PostForm>
      )}
      {problem && (
        <span role="alert" className="resend-failed">
          {' '}
          {message(problem.code, locale, { retryAfter: problem.retryAfter })}
        </span>
      )}
    </span>
  );
}
