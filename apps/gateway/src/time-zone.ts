import type { FastifyRequest } from 'fastify';

// The browser's time zone, as the web app tells it once it runs (the `time_zone` cookie,
// apps/web/src/relative-time.tsx), so a page rendered here says its days and times in the
// person's own ("Today" from their midnight, not UTC's), with scripts or without.

const COOKIE = 'time_zone';
/** IANA names ("Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5"): never longer, never other characters. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** Names already checked (a handful per deployment), each to the zone's own spelling or null; bounded. */
const checked = new Map<string, string | null>();
const CHECKED_MAX = 1000;

/** The zone the request's `time_zone` cookie names, when this runtime knows it; undefined otherwise (the page says UTC). */
export function timeZoneOf(req: FastifyRequest): string | undefined {
  const raw = req.cookies[COOKIE];
  if (raw === undefined || !ZONE_NAME.test(raw)) return undefined;
  let zone = checked.get(raw);
  if (zone === undefined) {
    try {
      zone = new Intl.DateTimeFormat('en', { timeZone: raw }).resolvedOptions().timeZone;
    } catch {
      zone = null;
    }
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.set(raw, zone);
  }
  return zone ?? undefined;
}
