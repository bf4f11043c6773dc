import { sql, type AnyColumn, type Placeholder } from 'drizzle-orm';

// Every time a rule measures (session expiry and idling, lockout windows, the mail cap, mailed
// links, retention) is read from the database's clock, the clock its rows are stamped with, so no
// answer depends on which instance asks, and tests move time by ageing rows.

/** A duration as a PostgreSQL interval (a prepared statement may leave it a placeholder). */
export const millis = (ms: number | Placeholder) => sql`(${ms}::double precision * interval '1 millisecond')`;

/** The moment `ms` before now: rows stamped after it are inside a window of that length. */
export const ago = (ms: number | Placeholder) => sql`now() - ${millis(ms)}`;

/** The moment `ms` after now (an expiry, a retry). */
export const fromNow = (ms: number) => sql`now() + ${millis(ms)}`;

/** Whole seconds, rounded up, until the row stamped `at` leaves a window of `ms` (a Retry-After). */
export const secondsUntilOut = (at: AnyColumn, ms: number) =>
  sql<number>`ceil(extract(epoch from (${at} + ${millis(ms)} - now())))::integer`.mapWith(Number);
