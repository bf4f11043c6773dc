import { useEffect, useRef } from 'react';
import { PageHeading } from '../components/PageHeading';
import { useI18n } from '../i18n';
import { useMailText } from '../i18n/mail-page-strings';
import { Link } from '../router';
import { trpc } from '../trpc';
import { useLinkToken } from './link-token';

/** The page a verification link opens: it confirms the address at once. */
export function VerifyEmailPage() {
  const { t } = useI18n();
  const m = useMailText();
  const token = useLinkToken('/verify-email');
  const utils = trpc.useUtils();
  const verify = trpc.email.verifyEmail.useMutation({ onSuccess: () => void utils.account.me.invalidate() });
  const started = useRef(false);
  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    verify.mutate({ token });
  }, [token, verify]);

  let body;
  if (!token) body = <p>{m('verifyNoToken')}</p>;
  else if (verify.isSuccess) body = <p className="verify-done">{m('verifyDone')}</p>;
  else if (verify.isError) body = <p className="verify-failed">{m('verifyFailed')}</p>;
  else body = <p>{m('verifyBusy')}</p>;

  return (
    <>
      <PageHeading>{m('verifyTitle')}</PageHeading>
      <div className={verify.isSuccess ? 'success' : 'notice'} role="status">
        {body}
        <p>
          <Link to="/account">{m('toAccount')}</Link>
        </p>
      </div>
    </>
  );
}
