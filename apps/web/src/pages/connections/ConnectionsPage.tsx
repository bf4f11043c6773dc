import '../../security.css';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { RemoveForm } from '../../components/RemoveForm';
import { LoadError, Loading } from '../../components/Status';
import { describeFailure, isUnauthenticated, problemCodeMessage } from '../../failure';
import { problemError, useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { TimeAgo } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded } from '../../session';
import { trpc } from '../../trpc';
import { useConnectionsText } from './strings';

export function ConnectionsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('connectionsTitle')}</PageHeading>
      <RequireAuth>{() => <ConnectionList />}</RequireAuth>
    </>
  );
}

/** The accounts at other providers that sign in to this one, each with "Remove", and "Connect" for the others. */
function ConnectionList() {
  const c = useConnectionsText();
  const { locale } = useI18n();
  const { search } = useLocation();
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const list = trpc.connections.list.useQuery(undefined);
  const remove = trpc.connections.remove.useMutation();
  // Removed without scripts, or back from the provider: the page says what came of it.
  const posted = useFormOutcome('removeConnection');
  const [status, setStatus] = useState<string | null>(() =>
    posted && !posted.problem
      ? c('connectionsRemoved', { provider: posted.values.provider_name ?? '' })
      : !posted && search.get('notice') === 'connected'
        ? c('connectionsDone')
        : !posted && search.get('notice') === 'upstream_took_over'
          ? c('upstreamTookOver')
          : null,
  );
  const [error, setError] = useState<string | null>(() => {
    if (posted?.problem) return describeFailure(problemError(posted.problem), locale).message;
    return posted ? null : problemCodeMessage(search, locale);
  });
  const statusRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const failed = list.error ?? remove.error;
    if (failed && isUnauthenticated(failed)) sessionEnded();
  }, [list.error, remove.error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (list.error && !isUnauthenticated(list.error))
    return <LoadError error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  const { connections, available } = list.data;

  const onRemove = (provider: string, name: string) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (remove.isPending) return;
    setStatus(null);
    setError(null);
    remove.mutate(
      { provider },
      {
        onSuccess: () => {
          setStatus(c('connectionsRemoved', { provider: name }));
          statusRef.current?.focus();
          void utils.connections.list.invalidate();
        },
        onError: (err) => {
          if (!isUnauthenticated(err)) setError(describeFailure(err, locale).message);
          statusRef.current?.focus();
          void utils.connections.list.invalidate();
        },
      },
    );
  };

  return (
    <>
      <p className="intro">{c('connectionsIntro')}</p>
      <div
        role={error ? 'alert' : 'status'}
        className={error ? 'error' : status ? 'success' : undefined}
        tabIndex={-1}
        ref={statusRef}
      >
        {(error ?? status) && <p>{error ?? status}</p>}
      </div>
      {connections.length === 0 ? (
        <p className="connections-none">{c('connectionsNone')}</p>
      ) : (
        <ul className="sessions connections">
          {connections.map((connection) => (
            <li key={connection.provider} className="session connection">
              <h2 className="session-device">{connection.providerName}</h2>
              {connection.email && <p>{c('connectionsEmail', { email: connection.email })}</p>}
              <p className="session-times">
                {c('connectionsConnected', { time: '' })}
                <TimeAgo at={connection.connectedAt} locale={locale} />
                {' · '}
                {c('connectionsLastUsed', { time: '' })}
                <TimeAgo at={connection.lastUsedAt} locale={locale} />
              </p>
              <RemoveForm
                name="removeConnection"
                hidden={{ provider: connection.provider, provider_name: connection.providerName }}
                onSubmit={onRemove(connection.provider, connection.providerName)}
                busy={remove.isPending}
                mine={remove.variables?.provider === connection.provider}
                label={c('connectionsRemoveLabel', { provider: connection.providerName })}
                text={{ remove: c('connectionsRemove'), removing: c('connectionsRemoving') }}
              />
            </li>
          ))}
        </ul>
      )}
      {available.length > 0 && (
        <>
          <h2>{c('connectionsAddTitle')}</h2>
          <p>{c('connectionsAddIntro')}</p>
          <ul className="connections-available">
            {available.map((provider) => (
              // The provider's own page comes next: the browser posts this form itself, with or without scripts.
              <li key={provider.id}>
                <form method="post" action="/users/connections/connect">
                  <input type="hidden" name="provider" value={provider.id} />
                  <button type="submit" className="secondary">
                    {c('connectionsConnect', { provider: provider.name })}
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
