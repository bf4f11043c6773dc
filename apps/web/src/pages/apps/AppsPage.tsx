import '../../security.css';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { RemoveForm } from '../../components/RemoveForm';
import { LoadError, Loading } from '../../components/Status';
import { describeFailure, isUnauthenticated } from '../../failure';
import { problemError, useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { TimeAgo } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { useSessionEnded } from '../../session';
import { trpc } from '../../trpc';
import { useAppsText } from './strings';

export function AppsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('appsTitle')}</PageHeading>
      <RequireAuth>{() => <AppList />}</RequireAuth>
    </>
  );
}

/** The apps with access to the account, each with what it may see, when it was last used, and "Remove access". */
function AppList() {
  const a = useAppsText();
  const { locale } = useI18n();
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const list = trpc.apps.list.useQuery(undefined);
  const revoke = trpc.apps.revoke.useMutation();
  // Removed without scripts: the page the server answers with says so (or what was wrong).
  const posted = useFormOutcome('revokeApp');
  const [status, setStatus] = useState<string | null>(() =>
    posted && !posted.problem ? a('appsRemoved', { app: posted.values.app_name ?? '' }) : null,
  );
  const [error, setError] = useState<string | null>(() =>
    posted?.problem ? describeFailure(problemError(posted.problem), locale).message : null,
  );
  const statusRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const failed = list.error ?? revoke.error;
    if (failed && isUnauthenticated(failed)) sessionEnded();
  }, [list.error, revoke.error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (list.error && !isUnauthenticated(list.error))
    return <LoadError error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  const { apps } = list.data;

  const onRemove = (clientId: string, name: string) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (revoke.isPending) return;
    setStatus(null);
    setError(null);
    revoke.mutate(
      { client_id: clientId },
      {
        onSuccess: () => {
          setStatus(a('appsRemoved', { app: name }));
          statusRef.current?.focus();
          void utils.apps.list.invalidate();
        },
        onError: (err) => {
          if (!isUnauthenticated(err)) setError(describeFailure(err, locale).message);
          // Gone meanwhile (removed elsewhere): the list says how things are now.
          void utils.apps.list.invalidate();
        },
      },
    );
  };

  return (
    <>
      <p className="intro">{a('appsIntro')}</p>
      <div
        role={error ? 'alert' : 'status'}
        className={error ? 'error' : status ? 'success' : undefined}
        tabIndex={-1}
        ref={statusRef}
      >
        {(error ?? status) && <p>{error ?? status}</p>}
      </div>
      {apps.length === 0 ? (
        <p className="apps-none">{a('appsNone')}</p>
      ) : (
        <ul className="sessions apps">
          {apps.map((app) => (
            <li key={app.clientId} className="session app">
              <h2 className="session-device">
                {app.name}
                {app.firstParty && <span className="badge">{a('appsFirstParty')}</span>}
              </h2>
              <p className="app-scopes">
                {a('appsMaySee')} {app.scopes.map((scope) => a(`scope_${scope}`)).join(', ')}
              </p>
              <p className="session-times">
                {a('appsLastUsed', { time: '' })}
                <TimeAgo at={app.lastUsedAt} locale={locale} />
                {' · '}
                {a('appsGranted', { time: '' })}
                <TimeAgo at={app.grantedAt} locale={locale} />
              </p>
              <RemoveForm
                name="revokeApp"
                hidden={{ client_id: app.clientId, app_name: app.name }}
                onSubmit={onRemove(app.clientId, app.name)}
                busy={revoke.isPending}
                mine={revoke.variables?.client_id === app.clientId}
                label={a('appsRemoveLabel', { app: app.name })}
                text={{ remove: a('appsRemove'), removing: a('appsRemoving') }}
              />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
