import type { RouterOutputs } from '../../trpc';

// The activity list as people read it: by day, routine repeats in one row with a count, the first
// step of a sign-in inside the sign-in it led to, and what asks for attention marked as such.

export type ActivityEvent = RouterOutputs['security']['activity']['events'][number];

/** How a row looks: a failed attempt, a warning (no failure, the same attention), or plain. */
export type Tone = 'failure' | 'warning' | 'plain';

/** One row of the list: one event, or the same event repeated that day (same device, address, app). */
export interface ActivityRow {
  /** The newest event's id. */
  id: string;
  type: string;
  /** The row's events, newest first (more than one: a row with a count). */
  events: ActivityEvent[];
  tone: Tone;
  /** A sign-in from a device the account did not know then. */
  newDevice: boolean;
  /** Beside it: "Wasn't you? Change your password and sign out everywhere." */
  askIfYou: boolean;
}

export interface ActivityDay {
  /** "2026-03-10", in the zone the page says its times in. */
  day: string;
  rows: ActivityRow[];
}

/** Events that are no failed attempt but ask for the same attention: marked like failures, as a warning. */
const WARNINGS = new Set(['passkey_counter_regressed']);

/**
 * Requests the service turned away (too many at once, from another site, an old link): `failed`
 * for the API, but nobody failed to prove anything. Said in plain words, never as a red failure.
 */
const REFUSED_REQUESTS = new Set(['rate_limited', 'cross_origin_refused', 'token_invalid']);

/** A pending sign-in lives 5 minutes (api/src/sign-in/pending.ts); a minute more for the clocks. */
const SECOND_STEP_MS = 6 * 60_000;

const timeOf = (e: ActivityEvent) => new Date(e.at).getTime();
const sameClient = (a: ActivityEvent, b: ActivityEvent) => a.device === b.device && a.address === b.address;

/**
 * The first steps of sign-ins (`sign_in_second_step`: the right password, the second step asked
 * for) that a sign-in from the same device completed within a pending sign-in's life: that
 * sign-in's row says it all. Each sign-in completes one first step, the nearest before it. Newest first.
 */
function withoutCompletedFirstSteps(events: readonly ActivityEvent[]): ActivityEvent[] {
  const signIns: { event: ActivityEvent; used: boolean }[] = [];
  const kept: ActivityEvent[] = [];
  for (const e of events) {
    if (e.type === 'sign_in_second_step') {
      const at = timeOf(e);
      let nearest: (typeof signIns)[number] | undefined;
      for (const s of signIns) {
        const after = timeOf(s.event) - at;
        if (s.used || !sameClient(s.event, e) || after < 0 || after > SECOND_STEP_MS) continue;
        if (!nearest || timeOf(s.event) < timeOf(nearest.event)) nearest = s;
      }
      if (nearest) {
        nearest.used = true;
        continue;
      }
    }
    if (e.type === 'signed_in') signIns.push({ event: e, used: false });
    kept.push(e);
  }
  return kept;
}

function toneOf(e: ActivityEvent): Tone {
  if (e.failed && !REFUSED_REQUESTS.has(e.type)) return 'failure';
  return WARNINGS.has(e.type) ? 'warning' : 'plain';
}

/**
 * The events (newest first, as the API lists them) as the page shows them: grouped by their day
 * in `dayOf`'s zone; within a day, an event repeated (same type, device, address, app, and for a
 * sign-in whether the device was new) is one row with a count, where its newest one was.
 */
export function compactActivity(events: readonly ActivityEvent[], dayOf: (at: Date | string) => string): ActivityDay[] {
  const days = new Map<string, ActivityDay>();
  const rowsByKey = new Map<string, ActivityRow>();
  for (const e of withoutCompletedFirstSteps(events)) {
    const day = dayOf(e.at);
    let current = days.get(day);
    if (!current) days.set(day, (current = { day, rows: [] }));
    const newDevice = e.newDevice === true;
    const key = JSON.stringify([day, e.type, e.device, e.address, e.app, newDevice]);
    const same = rowsByKey.get(key);
    if (same) {
      same.events.push(e);
      continue;
    }
    const tone = toneOf(e);
    const row: ActivityRow = {
      id: e.id,
      type: e.type,
      events: [e],
      tone,
      newDevice,
      // A failed attempt, a new device, or the right password with no sign-in after it: someone
      // may have the password.
      askIfYou: tone === 'failure' || newDevice || e.type === 'sign_in_second_step',
    };
    rowsByKey.set(key, row);
    current.rows.push(row);
  }
  return [...days.values()];
}
