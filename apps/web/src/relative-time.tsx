import { useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { Locale } from '@accounts/validators';
import { TimeZoneContext } from './time-zone';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

// One formatter per language, made once: making one costs far more than using it, and a page of
// sessions or events made two for every time it showed.
const relativeFormats = new Map<Locale, Intl.RelativeTimeFormat>();
const absoluteFormats = new Map<Locale, Intl.DateTimeFormat>();
function formatter<F>(made: Map<Locale, F>, locale: Locale, make: () => F): F {
  let format = made.get(locale);
  if (!format) made.set(locale, (format = make()));
  return format;
}

/** "3 minutes ago", "vor 2 Stunden", "hier": a time as people say it, in their language. */
export function relativeTime(at: Date | string, locale: Locale, now = Date.now()): string {
  const seconds = Math.round((new Date(at).getTime() - now) / 1000);
  const format = formatter(relativeFormats, locale, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}

/** The full date and time, for a tooltip and the <time> element's reader. */
export const absoluteTime = (at: Date | string, locale: Locale) =>
  formatter(
    absoluteFormats,
    locale,
    () => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }),
  ).format(new Date(at));

const noSubscription = () => () => {};

/**
 * A <time> showing the relative time, with the exact one in its title. Taking the server's page
 * over, the browser keeps the server's words and title instead of making its own: the first
 * time format a page makes costs a phone some 60–90 ms of its main thread, and the words may
 * no longer be the browser's anyway ("now" a second before the minute, "1 minute ago" after),
 * which would redraw the whole page. The title of a time the browser draws itself is made when
 * the time is pointed at.
 */
export function TimeAgo({ at, locale }: { at: Date | string; locale: Locale }) {
  const iso = new Date(at).toISOString();
  const onServer = typeof window === 'undefined';
  // True on the server and while the browser takes the server's HTML over.
  const takingOver = useSyncExternalStore(
    noSubscription,
    () => false,
    () => true,
  );
  const [keptFor, setKeptFor] = useState(!onServer && takingOver ? iso : null);
  if (keptFor !== null && keptFor !== iso) setKeptFor(null);
  return (
    <time
      dateTime={iso}
      title={onServer ? absoluteTime(at, locale) : undefined}
      onPointerEnter={(event) => {
        event.currentTarget.title ||= absoluteTime(at, locale);
      }}
      suppressHydrationWarning
    >
      {keptFor === iso ? '' : relativeTime(at, locale)}
    </time>
  );
}

// Days. A list grouped by day ("Today", "Yesterday", "Tuesday 10 March") needs the zone the
// person's day is in: the server knows it only from the `time_zone` cookie the app writes (the
// gateway checks it and renders with it, PageData's timeZone), else it says UTC. The browser takes
// the server's HTML over in the zone it was rendered in, then uses its own (and tells the server,
// for the next page it renders).

/** The cookie the app tells the gateway the browser's time zone in (apps/gateway/src/time-zone.ts reads it). */
export const TIME_ZONE_COOKIE = 'time_zone';

let systemFormat: Intl.DateTimeFormat | undefined;
/** The browser's own time zone (an IANA name); UTC where the browser does not say. */
export const browserTimeZone = () => (systemFormat ??= new Intl.DateTimeFormat()).resolvedOptions().timeZone || 'UTC';

/** Tells the gateway the browser's zone, for the pages it renders from now on (a year; not a secret). */
function rememberTimeZone(zone: string) {
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}

/**
 * The zone the page says its times in: the one the server rendered them in while the browser
 * takes its HTML over (so nothing differs), then the browser's own. `told` is false while that is
 * UTC only because the server was not told (its times then say "UTC").
 */
export function useTimeZone(): { zone: string; told: boolean } {
  const rendered = useContext(TimeZoneContext);
  const zone = useSyncExternalStore(noSubscription, browserTimeZone, () => rendered ?? 'UTC');
  const told = useSyncExternalStore(
    noSubscription,
    () => true,
    () => rendered !== null,
  );
  useEffect(() => {
    if (zone !== rendered) rememberTimeZone(zone);
  }, [zone, rendered]);
  return { zone, told };
}

// Made once per language, zone and kind, as the relative formats are; on the server each zone a
// browser told adds a few, so the cache is bounded.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const DATE_FORMATS_MAX = 500;
function dateFormat(locale: Locale, zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale} ${zone} ${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) {
    if (dateFormats.size >= DATE_FORMATS_MAX) dateFormats.clear();
    try {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    } catch {
      // A zone this runtime does not know (the server checks the cookie's; a browser's is its own).
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    }
    dateFormats.set(key, format);
  }
  return format;
}

/** The day a time falls on in `zone`, as "2026-03-10": what a list groups by. */
export function dayOf(at: Date | string | number, zone: string): string {
  const parts = dateFormat('en', zone, { year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
    new Date(at),
  );
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The day before a day ("2026-03-01" → "2026-02-28"), by the calendar, whatever the clocks did. */
const dayBefore = (day: string) => new Date(Date.parse(`${day}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

const capitalized = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

/** A day as a heading says it: "Today", "Gestern", "Mardi 10 mars" (with its year when not this year's). */
export function dayLabel(day: string, locale: Locale, zone: string, now = Date.now()): string {
  const today = dayOf(now, zone);
  const relative = formatter(relativeFormats, locale, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));
  if (day === today) return capitalized(relative.format(0, 'day'));
  if (day === dayBefore(today)) return capitalized(relative.format(-1, 'day'));
  const options: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long' };
  if (day.slice(0, 4) !== today.slice(0, 4)) options.year = 'numeric';
  // The day itself, said at its noon in UTC: the same day in every zone's words.
  return capitalized(dateFormat(locale, 'UTC', options).format(new Date(`${day}T12:00:00Z`)));
}

/** Items in their order, grouped by the day of each (`dayOf`), the groups in the order they first appear. */
export function byDay<T>(items: readonly T[], dayOfItem: (item: T) => string): { day: string; items: T[] }[] {
  const days = new Map<string, T[]>();
  for (const item of items) {
    const day = dayOfItem(item);
    const same = days.get(day);
    if (same) same.push(item);
    else days.set(day, [item]);
  }
  return [...days].map(([day, grouped]) => ({ day, items: grouped }));
}

/** A day's heading; the words for "today" are the browser's own once it runs (at midnight they may differ). */
export function DayHeading({ day, locale, zone, id }: { day: string; locale: Locale; zone: string; id?: string }) {
  return (
    <h2 className="day-heading" id={id} suppressHydrationWarning>
      {dayLabel(day, locale, zone)}
    </h2>
  );
}

/** A <time> saying the time of day ("14:32", "2:32 PM"; "14:32 UTC" while the zone is not told), the full date in its title. */
export function ClockTime({
  at,
  locale,
  zone,
  told,
}: {
  at: Date | string;
  locale: Locale;
  zone: string;
  told: boolean;
}) {
  const clock = dateFormat(locale, zone, { timeStyle: 'short' }).format(new Date(at));
  const full = dateFormat(locale, zone, { dateStyle: 'long', timeStyle: 'short' });
  return (
    <time dateTime={new Date(at).toISOString()} title={full.format(new Date(at))}>
      {told ? clock : `${clock} UTC`}
    </time>
  );
}
