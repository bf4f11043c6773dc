import { useState, useSyncExternalStore } from 'react';
import type { Locale } from '@accounts/validators';

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
