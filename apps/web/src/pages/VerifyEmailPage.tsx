import type { FormEvent } from 'react';
import { PageHeading } from '../components/PageHeading';
import { SubmitButton } from '../components/SubmitButton';
import { useMailText } from '../i18n/mail-page-strings';
import { Link } from '../router';
import { trpc } from '../trpc';
import { useLinkToken } from './link-token';

/**
 * The page a verification link opens. Opening it confirms nothing (a mail scanner or a
 * previewer opens links too): it shows what the link would confirm, and the person confirms
 * with the button.
 */
export function VerifyEmailPage() {
  const m = useMailText();
  const token = useLinkToken('/verify-email');
  return (
    <>
      <PageHeading>{m('verifyTitle')}</PageHeading>
      {token ? (
        <ConfirmAddress token={token} />
      ) : (
        <div className="notice" role="status">
          <p>{m('verifyNoToken')}</p>
          <p>
            <Link to="/account">{m('toAccount')}</Link>
          </p>
        </div>
      )}
    </>
  );
}

function ConfirmAddress({ token }: { token: string }) {
  const m = useMailText();
  const utils = trpc.useUtils();
  // Read-only: the token stays usable however often this is asked.
  const link = trpc.email.verificationLink.useQuery({ token }, { staleTime: Infinity });
  const verify = trpc.email.verifyEmail.useMutation({ onSuccess: () => void utils.account.me.invalidate() });
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!verify.isPending) verify.mutate({ token });
  };

  if (verify.isSuccess || link.isError || verify.isError) {
    return (
      <div className={verify.isSuccess ? 'success' : 'notice'} role="status">
        {verify.isSuccess ? (
          <p className="verify-done">{m('verifyDone')}</p>
        ) : (
          <p className="verify-failed">{m('verifyFailed')}</p>
        )}
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
      <form method="post" noValidate onSubmit={confirm} aria-busy={verify.isPending}>
        <SubmitButton busy={verify.isPending} label={m('verifyConfirm')} busyLabel={m('verifyBusy')} />
      </form>
      <p className="verify-not-yours">{m('verifyNotYours')}</p>
    </>
  );
}
