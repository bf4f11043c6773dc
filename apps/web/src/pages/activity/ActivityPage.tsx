import '../../security.css';
import { useEffect, useState } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { LoadError, Loading } from '../../components/Status';
import { StepLink, stepHref } from '../../components/StepLink';
import { isUnauthenticated } from '../../failure';
import { useI18n } from '../../i18n';
import { useDeviceText } from '../../i18n/device-strings';
import { isActivityKey, useActivityText } from './strings';
import { TimeAgo } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded } from '../../session';
import { trpc } from '../../trpc';

export function ActivityPage() {
  const s = useActivityText();
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('activityTitle')}</PageHeading>
      <RequireAuth>
        {() => (
          <>
            <p className="intro">{s('activityIntro')}</p>
            <ActivityList />
          </>
        )}
      </RequireAuth>
    </>
  );
}

/**
 * The pages shown so far, each from the cursor the previous one ended with. The first is the
 * address's `?cursor=` (none: the newest): "older" is a link to the next one, which the app
 * instead adds below the events shown.
 */
function ActivityList() {
  const { search } = useLocation();
  const [cursors, setCursors] = useState<(string | undefined)[]>(() => [search.get('cursor') ?? undefined]);
  return (
    <ol className="activity">
      {cursors.map((cursor, i) => (
        <ActivityChunk
          key={cursor ?? 'first'}
          cursor={cursor}
          last={i === cursors.length - 1}
          onMore={(next) => setCursors((c) => [...c, next])}
        />
      ))}
    </ol>
  );
}

/** Events that are no failed attempt but ask for the same attention: marked like failures, as a warning. */
const WARNINGS = new Set(['passkey_counter_regressed']);

function ActivityChunk({ cursor, last, onMore }: { cursor?: string; last: boolean; onMore: (cursor: string) => void }) {
  const s = useActivityText();
  const unknown = useDeviceText();
  const { locale } = useI18n();
  const { path } = useLocation();
  const sessionEnded = useSessionEnded();
  const page = trpc.security.activity.useQuery(cursor ? { cursor } : {});
  useEffect(() => {
    if (page.error && isUnauthenticated(page.error)) sessionEnded();
  }, [page.error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (page.error && !isUnauthenticated(page.error))
    return (
      <li>
        <LoadError error={page.error} retry={() => void page.refetch()} />
      </li>
    );
  if (!page.data)
    return (
      <li>
        <Loading />
      </li>
    );
  const { events, nextCursor } = page.data;
  return (
    <>
      {events.length === 0 && cursor === undefined && <li className="activity-none">{s('activityNone')}</li>}
      {events.map((e) => {
        const key = `event_${e.type}`;
        // An app's events name it (its name when it happened).
        const label = isActivityKey(key) ? s(key, { app: e.app ?? '' }) : s('activityOther', { type: e.type });
        const warning = !e.failed && WARNINGS.has(e.type);
        return (
          <li key={e.id} className={e.failed || warning ? 'event failed' : 'event'}>
            <p className="event-what">
              <strong>{label}</strong>
              {e.failed && <span className="badge badge-failed">{s('activityFailed')}</span>}
              {warning && <span className="badge badge-failed">{s('activityWarning')}</span>}
            </p>
            <p className="event-when">
              <TimeAgo at={e.at} locale={locale} />
            </p>
            <p className="event-where">
              {s('activityFrom', {
                device: e.device ?? unknown('sessionsUnknownDevice'),
                address: e.address ?? unknown('sessionsUnknownAddress'),
              })}
            </p>
          </li>
        );
      })}
      {last && nextCursor && (
        <li className="activity-more">
          <StepLink
            href={stepHref(path, 'cursor', nextCursor)}
            className="secondary button-link"
            onOpen={() => onMore(nextCursor)}
          >
            {s('activityOlder')}
          </StepLink>
        </li>
      )}
    </>
  );
}
