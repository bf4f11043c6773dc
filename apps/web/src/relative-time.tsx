import type { Locale } from '@accounts/validators';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 minutes ago", "vor 2 Stunden", "hier": a time as people say it, in their language. */
export function relativeTime(at: Date | string, locale: Locale, now = Date.now()): string {
  const seconds = Math.round((new Date(at).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}

/** The full date and time, for a tooltip and the <time> element's reader. */
export const absoluteTime = (at: Date | string, locale: Locale) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(new Date(at));

/**
 * A <time> showing the relative time, with the exact one in its title. The server's words may no
 * longer be the browser's by the time the app takes the page over ("now" a second before the
 * minute, "1 minute ago" after): the server's are kept rather than the whole page redrawn.
 */
export function TimeAgo({ at, locale }: { at: Date | string; locale: Locale }) {
  const iso = new Date(at).toISOString();
  return (
    <time dateTime={iso} title={absoluteTime(at, locale)} suppressHydrationWarning>
      {relativeTime(at, locale)}
    </time>
  );
}
