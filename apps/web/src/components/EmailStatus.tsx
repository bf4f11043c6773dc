import { useI18n } from '../i18n';
import { useHydrated } from '../hydrated';
import { useMailText } from '../i18n/mail-page-strings';
import { problemOf, trpc } from '../trpc';
import type { SignedInUser } from '../session';
import { message } from '@accounts/validators';

/** Whether the account's address is confirmed, and a way to get the link again when it is not. */
export function EmailStatus({ user }: { user: SignedInUser }) {
  const { locale } = useI18n();
  const m = useMailText();
  const resend = trpc.email.resendVerification.useMutation();
  const hydrated = useHydrated();
  if (user.emailVerified) return <span className="email-status email-verified"> ({m('emailVerified')})</span>;
  const problem = resend.error ? problemOf(resend.error) : null;
  return (
    <span className="email-status email-unverified">
      {' '}
      ({m('emailUnverified')}){' '}
      {resend.isSuccess ? (
        <span role="status" className="resend-done">
          {resend.data.alreadyVerified ? m('resendAlready') : m('resendDone', { email: user.email })}
        </span>
      ) : (
        <button
          type="button"
          className="link-button resend-verification"
          disabled={resend.isPending || !hydrated}
          onClick={() => resend.mutate()}
        >
          {resend.isPending ? m('resendBusy') : m('resendLink')}
        </button>
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
