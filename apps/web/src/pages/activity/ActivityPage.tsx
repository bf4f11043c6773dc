import '../../security.css';
import { Fragment, useEffect, useState } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { LoadError, Loading } from '../../components/Status';
import { StepLink, stepHref } from '../../components/StepLink';
import { isUnauthenticated } from '../../failure';
import { useI18n } from '../../i18n';
import { useDeviceText } from '../../i18n/device-strings';
import { ClockTime, DayHeading, dayOf, useTimeZone } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { Link, useLocation } from '../../router';
import { useSessionEnded } from '../../session';
import { trpc } from '../../trpc';
import { compactActivity, type ActivityEvent, type ActivityRow } from './compact';
import { isActivityKey, useActivityText } from './strings';

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
 * The pages of events shown so far, each from the cursor the previous one ended with, as one list
 * by day. The first is the address's `?cursor=` (none: the newest): "older" is a link to the next
 * one, which the app instead adds below the events shown.
 */
function ActivityList() {
  const s = useActivityText();
  const { locale } = useI18n();
  const { zone, told } = useTimeZone();
  const { path, search } = useLocation();
  const sessionEnded = useSessionEnded();
  const [cursors, setCursors] = useState<(string | undefined)[]>(() => [search.get('cursor') ?? undefined]);
  const pages = trpc.useQueries((q) => cursors.map((cursor) => q.security.activity(cursor ? { cursor } : {})));
  const failed = pages.find((p) => p.error)?.error ?? null;
  useEffect(() => {
    if (failed && isUnauthenticated(failed)) sessionEnded();
  }, [failed]); // eslint-disable-line react-hooks/exhaustive-deps

  // The pages answered so far, in order (a later one only once every earlier one is in).
  const answered = pages.findIndex((p) => !p.data);
  const shown = answered === -1 ? pages : pages.slice(0, answered);
  const days = compactActivity(
    shown.flatMap((p) => p.data!.events),
    (at) => dayOf(at, zone),
  );
  const last = shown.length === pages.length ? pages.at(-1)?.data : undefined;
  const nextCursor = last?.nextCursor;

  return (
    <div className="activity-days">
      {days.map(({ day, rows }) => (
        <section key={day} aria-labelledby={`day-${day}`}>
          <DayHeading day={day} locale={locale} zone={zone} id={`day-${day}`} />
          <ol className="activity">
            {rows.map((row) => (
              <ActivityItem key={row.id} row={row} zone={zone} told={told} />
            ))}
          </ol>
        </section>
      ))}
      {last && days.length === 0 && cursors[0] === undefined && <p className="activity-none">{s('activityNone')}</p>}
      {failed && !isUnauthenticated(failed) ? (
        <LoadError error={failed} retry={() => void pages.find((p) => p.error)?.refetch()} />
      ) : (
        !last && <Loading />
      )}
      {nextCursor && (
        <p className="activity-more">
          <StepLink
            href={stepHref(path, 'cursor', nextCursor)}
            className="secondary button-link"
            onOpen={() => setCursors((c) => (c.includes(nextCursor) ? c : [...c, nextCursor]))}
          >
            {s('activityOlder')}
          </StepLink>
        </p>
      )}
    </div>
  );
}

/**
 * One row: what happened, marked when it asks for attention, when and from where. A repeated
 * event is one row with its count, its times in a <details> (it opens without scripts too).
 */
function ActivityItem({ row, zone, told }: { row: ActivityRow; zone: string; told: boolean }) {
  const s = useActivityText();
  const unknown = useDeviceText();
  const { locale } = useI18n();
  const [newest] = row.events as [ActivityEvent, ...ActivityEvent[]];
  const key = `event_${row.type}`;
  // An app's or a provider's events name it (its name when it happened).
  const label = isActivityKey(key) ? s(key, { app: newest.app ?? '' }) : s('activityOther', { type: row.type });
  const count = row.events.length;
  const what = (
    <>
      <strong>{label}</strong>
      {count > 1 && <span className="event-count">{s('activityTimes', { count })}</span>}
      {row.tone === 'failure' && <span className="badge badge-failed">{s('activityFailed')}</span>}
      {row.tone === 'warning' && <span className="badge badge-failed">{s('activityWarning')}</span>}
      {row.newDevice && <span className="badge badge-new">{s('activityNewDevice')}</span>}
    </>
  );
  const time = (e: ActivityEvent) => <ClockTime at={e.at} locale={locale} zone={zone} told={told} />;
  return (
    <li className={row.tone === 'plain' ? 'event' : 'event failed'}>
      {count > 1 ? (
        <details className="event-repeats">
          <summary className="event-what">{what}</summary>
          <ol className="event-times">
            {row.events.map((e) => (
              <li key={e.id}>{time(e)}</li>
            ))}
          </ol>
        </details>
      ) : (
        <p className="event-what">{what}</p>
      )}
      <p className="event-where">
        {time(newest)}
        {' · '}
        {s('activityFrom', {
          device: newest.device ?? unknown('sessionsUnknownDevice'),
          address: newest.address ?? unknown('sessionsUnknownAddress'),
        })}
      </p>
      {row.askIfYou && <WasntYou />}
    </li>
  );
}

/** "Wasn't you? Change your password and sign out everywhere.", each a link to its page. */
function WasntYou() {
  const s = useActivityText();
  const links = {
    password: <Link to="/settings">{s('activityChangePassword')}</Link>,
    sessions: <Link to="/settings/sessions">{s('activitySignOutEverywhere')}</Link>,
  };
  // The sentence in each language's own order, its two links where it names them.
  const parts = s('activityWasntYou', { password: '{password}', sessions: '{sessions}' }).split(
    /\{(password|sessions)\}/,
  );
  return (
    <p className="event-advice">
      {parts.map((part, i) => (
        <Fragment key={i}>{i % 2 === 1 ? links[part as keyof typeof links] : part}</Fragment>
      ))}
    </p>
  );
}
