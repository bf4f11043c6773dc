import '../security.css';
import { useEffect, useState } from 'react';
import { PageHeading } from '../components/PageHeading';
import { LoadError, Loading } from '../components/Status';
import { describeFailure, isUnauthenticated } from '../failure';
import { useI18n } from '../i18n';
import { TimeAgo } from '../relative-time';
import { RequireAuth } from '../RequireAuth';
import { navigate } from '../router';
import { useForgetSession, useSessionEnded } from '../session';
import { trpc } from '../trpc';

export function SessionsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('sessionsTitle')}</PageHeading>
      <RequireAuth>{() => <SessionList />}</RequireAuth>
    </>
  );
}

/** The account's sessions, this device first, each other one with a button that ends it. */
function SessionList() {
  const { t, locale } = useI18n();
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
  const others = sessions.filter((s) => !s.current).length;

  const onRevoke = (id: string) =>
    revoke.mutate(
      { session_id: id },
      {
        onSuccess: (result) => {
          if (result.signedOut) {
            navigate('/login');
            void forgetSession();
          } else done(t('sessionsRevokedOne'));
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
      <p className="intro">{t('sessionsIntro')}</p>
      <div role="status" className={status ? 'success' : undefined}>
        {status && <p>{status}</p>}
      </div>
      {error && (
        <div className="alert" role="alert">
          <p>{error}</p>
        </div>
      )}
      <ul className="sessions">
        {sessions.map((s) => {
          const device = s.device ?? t('sessionsUnknownDevice');
          return (
            <li key={s.id} className="session" data-current={s.current || undefined}>
              <h2 className="session-device">
                {device}
                {s.current && <span className="badge">{t('sessionsThisDevice')}</span>}
              </h2>
              <p className="session-address">{s.address ?? t('sessionsUnknownAddress')}</p>
              <p className="session-times">
                {t('sessionsLastUsed', { time: '' })}
                <TimeAgo at={s.lastUsedAt} locale={locale} />
                {' · '}
                {t('sessionsSignedIn', { time: '' })}
                <TimeAgo at={s.createdAt} locale={locale} />
              </p>
              {!s.current && (
                <button type="button" className="secondary" disabled={busy} aria-label={t('sessionsRevokeLabel', { device })} onClick={() => onRevoke(s.id)}>
                  {revoke.isPending && revoke.variables?.session_id === s.id ? t('sessionsRevoking') : t('sessionsRevoke')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {others > 0 ? (
        <button type="button" className="primary" disabled={busy} onClick={onRevokeOthers}>
          {revokeOthers.isPending ? t('sessionsRevoking') : t('sessionsRevokeOthers')}
        </button>
      ) : (
        <p className="only-this">{t('sessionsOnlyThis')}</p>
      )}
    </>
  );
}
