import '../security.css';
import { useEffect, useState } from 'react';
import { PageHeading } from '../components/PageHeading';
import { LoadError, Loading } from '../components/Status';
import { describeFailure, isUnauthenticated } from '../failure';
import { useSecurityStrings } from '../i18n/security-strings';
import { TimeAgo } from '../relative-time';
import { RequireAuth } from '../RequireAuth';
import { navigate } from '../router';
import { useForgetSession, useSessionEnded } from '../session';
import { trpc } from '../trpc';

export function SessionsPage() {
  const { s, t } = useSecurityStrings();
  return (
    <>
      <PageHeading>{t('sessionsTitle')}</PageHeading>
      <RequireAuth>{() => <SessionList />}</RequireAuth>
    </>
  );
}

/** The account's sessions, this device first, each other one with a button that ends it. */
function SessionList() {
  const { locale, s, t } = useSecurityStrings();
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const forgetSession = useForgetSession();
  const list = trpc.security.sessions.useQuery(undefined);
  const revoke = trpc.security.revokeSession.useMutation();
  const revokeOthers = trpc.security.revokeOtherSessions.useMutation();
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // This device was signed out elsewhere: say so on the sign-in page.
  useEffect(() => {
    if (list.error && isUnauthenticated(list.error)) sessionEnded();
  }, [list.error]); // eslint-disable-line react-hooks/exhaustive-deps

  const failed = (err: unknown) => {
    if (isUnauthenticated(err)) return sessionEnded();
    setError(describeFailure(err, locale).message);
  };
  const done = (message: string) => {
    setError(null);
    setStatus(message);
    void utils.security.sessions.invalidate();
  };

  if (list.error && !isUnauthenticated(list.error)) return <LoadError error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  const sessions = list.data.sessions;
  const others = sessions.filter((one) => !one.current).length;

  const onRevoke = (id: string) =>
    revoke.mutate(
      { session_id: id },
      {
        onSuccess: (result) => {
          if (result.signedOut) {
            navigate('/login');
            void forgetSession();
          } else done(s('sessionsRevokedOne'));
        },
        onError: failed,
      },
    );
  const onRevokeOthers = () =>
    revokeOthers.mutate(undefined, {
      onSuccess: ({ revoked }) => done(revoked === 0 ? t('revokedNone') : revoked === 1 ? t('revokedOne') : t('revokedMany', { count: revoked })),
      onError: failed,
    });
  const busy = revoke.isPending || revokeOthers.isPending;

  return (
    <>
      <p className="intro">{s('sessionsIntro')}</p>
      <div role="status" className={status ? 'success' : undefined}>
        {status && <p>{status}</p>}
      </div>
      {error && (
        <div className="alert" role="alert">
          <p>{error}</p>
        </div>
      )}
      <ul className="sessions">
        {sessions.map((one) => {
          const device = one.device ?? s('sessionsUnknownDevice');
          return (
            <li key={one.id} className="session" data-current={one.current || undefined}>
              <h2 className="session-device">
                {device}
                {one.current && <span className="badge">{s('sessionsThisDevice')}</span>}
              </h2>
              <p className="session-address">{one.address ?? s('sessionsUnknownAddress')}</p>
              <p className="session-times">
                {s('sessionsLastUsed', { time: '' })}
                <TimeAgo at={one.lastUsedAt} locale={locale} />
                {' · '}
                {s('sessionsSignedIn', { time: '' })}
                <TimeAgo at={one.createdAt} locale={locale} />
              </p>
              {!one.current && (
                <button type="button" className="secondary" disabled={busy} aria-label={s('sessionsRevokeLabel', { device })} onClick={() => onRevoke(one.id)}>
                  {revoke.isPending && revoke.variables?.session_id === one.id ? s('sessionsRevoking') : s('sessionsRevoke')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {others > 0 ? (
        <button type="button" className="primary" disabled={busy} onClick={onRevokeOthers}>
          {revokeOthers.isPending ? s('sessionsRevoking') : s('sessionsRevokeOthers')}
        </button>
      ) : (
        <p className="only-this">{s('sessionsOnlyThis')}</p>
      )}
    </>
  );
}
