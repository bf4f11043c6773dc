import type { FormEvent } from 'react';
import { PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { problemError, useFormOutcome } from '../../forms/form-outcome';
import { describeFailure } from '../../failure';
import { useI18n } from '../../i18n';
import { useMailText } from './strings';
import { Link } from '../../router';
import { problemOf, trpc, type RouterOutputs } from '../../trpc';
import { CheckedLink } from './CheckedLink';
import { LinkPage } from './LinkPage';

/**
 * The page the link mailed to a new address opens. Like the verification page, opening it
 * changes nothing (mail scanners open links too): it shows the move the link would make, and the
 * person makes it with the button. No session is needed: the link is the proof.
 */
export function ConfirmEmailChangePage() {
  const m = useMailText();
  return (
    <LinkPage title={m('changeTitle')} path="/confirm-email-change">
      {(token) => (
        <CheckedLink
          purpose="change_email"
          token={token}
          forms={['confirmEmailChange']}
          stale={() => (
            <p className="link-new">
              {m('linkChangeAgain')} <Link to="/settings/email">{m('changeAgain')}</Link>
            </p>
          )}
        >
          <ConfirmChange token={token} />
        </CheckedLink>
      )}
    </LinkPage>
  );
}

/** What a refusal says about the link: used up (or never good), the address taken meanwhile, or neither. */
function linkOutcome(error: unknown): 'invalid' | 'taken' | null {
  const problem = problemOf(error);
  if (!problem) return null;
  const codes = [problem.code, ...(problem.errors ?? []).map((e) => e.code)];
  if (codes.includes('email_taken')) return 'taken';
  if (codes.includes('email_change_token_invalid')) return 'invalid';
  return null;
}

function ConfirmChange({ token }: { token: string }) {
  const m = useMailText();
  const { locale, t } = useI18n();
  const utils = trpc.useUtils();
  // Read-only: the token stays usable however often this is asked. A refusal that came with the
  // page (the server asked) is not asked again.
  const link = trpc.emailChange.link.useQuery({ token }, { staleTime: Infinity, retryOnMount: false });
  const confirm = trpc.emailChange.confirm.useMutation({ onSuccess: () => void utils.account.me.invalidate() });
  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (!confirm.isPending) confirm.mutate({ token });
  };
  // Confirmed without scripts: the page the server answers with starts from how it went, as
  // after the button here.
  const posted = useFormOutcome('confirmEmailChange');
  const fresh = confirm.isIdle;
  const confirmed =
    confirm.data ??
    (fresh && posted && !posted.problem ? (posted.result as RouterOutputs['emailChange']['confirm']) : null);
  const confirmError = confirm.error ?? (fresh && posted?.problem ? problemError(posted.problem) : null);

  const outcome = linkOutcome(link.error) ?? linkOutcome(confirmError);
  // Done, or nothing left to press: the link was used, expired or cancelled, or another account
  // took the address meanwhile (then nothing changed).
  if (confirmed || outcome) {
    return (
      <div className={confirmed ? 'success' : 'notice'} role="status">
        {confirmed ? (
          <>
            <p className="change-done">{m('changeDone', { email: confirmed.email })}</p>
            <p>{m('changeDoneHelp')}</p>
          </>
        ) : outcome === 'taken' ? (
          <p className="change-failed">{m('changeTaken', { email: link.data?.newEmail ?? '' })}</p>
        ) : (
          <p className="change-failed">{m('changeFailed')}</p>
        )}
        <p>
          {outcome === 'taken' ? (
            <Link to="/settings/email">{m('changeAgain')}</Link>
          ) : (
            <Link to="/account">{m('toAccount')}</Link>
          )}
        </p>
      </div>
    );
  }
  // The link could not be read (no connection, the service's trouble): said, with a retry. (As
  // Status.tsx's LoadError, which this chunk does not import: doing so splits the first page's
  // script into one more chunk, about 1 KB more to load before sign-in is usable.)
  if (link.error)
    return (
      <div className="alert" role="alert">
        <p>{describeFailure(link.error, locale).message}</p>
        <button type="button" className="secondary" onClick={() => void link.refetch()}>
          {t('retry')}
        </button>
      </div>
    );
  if (!link.data) return <p role="status">{m('verifyChecking')}</p>;
  return (
    <>
      <p className="intro change-what">
        {m('changeConfirmIntro', { email: link.data.newEmail, realm: link.data.realmName })}
      </p>
      {/* Any other refusal (no connection, a limit, the service's trouble): said, and the button stays. */}
      {confirmError && (
        <div className="alert" role="alert">
          <p>{describeFailure(confirmError, locale).message}</p>
        </div>
      )}
      {/* The link's token goes with the form: once the app runs, the address no longer has it. */}
      <PostForm name="confirmEmailChange" onSubmit={onConfirm} busy={confirm.isPending} hidden={{ token }}>
        <SubmitButton busy={confirm.isPending} label={m('changeConfirm')} busyLabel={m('changeBusy')} />
      </PostForm>
      <p className="change-not-yours">{m('changeNotYours')}</p>
    </>
  );
}
