import type { FormEvent } from 'react';
import { PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useFormOutcome } from '../../forms/form-outcome';
import { useMailText } from './strings';
import { Link } from '../../router';
import { trpc } from '../../trpc';
import { useSession } from '../../session';
import { CheckedLink } from './CheckedLink';
import { EmailStatus } from './EmailStatus';
import { LinkPage } from './LinkPage';

/**
 * The page a verification link opens. Opening it confirms nothing (a mail scanner or a
 * previewer opens links too): it shows what the link would confirm, and the person confirms
 * with the button.
 */
export function VerifyEmailPage() {
  const m = useMailText();
  return (
    <LinkPage title={m('verifyTitle')} path="/verify-email">
      {(token) => (
        <CheckedLink
          purpose="verify_email"
          token={token}
          forms={['verifyEmail']}
          stale={(link) => <NewVerificationLink email={link.email} />}
        >
          <ConfirmAddress token={token} />
        </CheckedLink>
      )}
    </LinkPage>
  );
}

/**
 * "Send a new link" for a verification link that no longer works: signed in, the account's own
 * resend form; signed out, the way to sign in first, with the address the link was mailed to.
 */
function NewVerificationLink({ email }: { email?: string }) {
  const m = useMailText();
  const session = useSession();
  if (session.status === 'signed-in')
    return (
      <section aria-labelledby="new-link">
        <h2 id="new-link">{m('linkNewTitle')}</h2>
        <p>
          {session.user.email}
          <EmailStatus user={session.user} />
        </p>
        <p>
          <Link to="/account">{m('toAccount')}</Link>
        </p>
      </section>
    );
  const next = `/login?next=${encodeURIComponent('/account')}${email ? `&email=${encodeURIComponent(email)}` : ''}`;
  return (
    <p className="link-new">
      <Link to={next}>{m('linkSignInForNew')}</Link>
    </p>
  );
}

function ConfirmAddress({ token }: { token: string }) {
  const m = useMailText();
  const utils = trpc.useUtils();
  // Read-only: the token stays usable however often this is asked. A refusal that came with the
  // page (the server asked) is not asked again.
  const link = trpc.email.verificationLink.useQuery({ token }, { staleTime: Infinity, retryOnMount: false });
  const verify = trpc.email.verifyEmail.useMutation({ onSuccess: () => void utils.account.me.invalidate() });
  // Confirmed without scripts: the page the server answers with says how it went.
  const posted = useFormOutcome('verifyEmail');
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!verify.isPending) verify.mutate({ token });
  };

  const done = verify.isSuccess || (posted !== null && !posted.problem && !verify.isError);
  const failed = verify.isError || (posted?.problem !== undefined && !verify.isSuccess);
  if (done || link.isError || failed) {
    return (
      <div className={done ? 'success' : 'notice'} role="status">
        {done ? <p className="verify-done">{m('verifyDone')}</p> : <p className="verify-failed">{m('verifyFailed')}</p>}
        <p>
          <Link to="/account">{m('toAccount')}</Link>
        </p>
      </div>
    );
  }
  if (!link.data) return <p role="status">{m('verifyChecking')}</p>;
  return (
    <>
      <p className="intro verify-what">
        {m('verifyConfirmIntro', { email: link.data.email, realm: link.data.realmName })}
      </p>
      {/* The link's token goes with the form: once the app runs, the address no longer has it. */}
      <PostForm name="verifyEmail" onSubmit={confirm} busy={verify.isPending} hidden={{ token }}>
        <SubmitButton busy={verify.isPending} label={m('verifyConfirm')} busyLabel={m('verifyBusy')} />
      </PostForm>
      <p className="verify-not-yours">{m('verifyNotYours')}</p>
    </>
  );
}
