import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { oidcLogouts, type Database } from '@accounts/db';
import { fromNow } from '../kernel/db-time.js';

// The back-channel logout outbox (OpenID Connect Back-Channel Logout 1.0). A row says: tell this
// app that this account's session (sid) ended. Rows come from the trigger on sessions (a session
// here ended, for any reason) and from the provider's own logout (enqueueLogout); a background
// sender of any gateway claims due rows (SKIP LOCKED, so two never take the same one), signs and
// posts the logout token, and deletes the row once delivered or given up.

export type LogoutRow = typeof oidcLogouts.$inferSelect;

/** Tries before a logout is given up; the first retry waits a second, each further one twice as long. */
export const LOGOUT_MAX_ATTEMPTS = 6;
const RETRY_BASE_MS = 1000;
/** A claimed row is hidden from other senders this long (a send times out well within it). */
const LEASE_MS = 30_000;

export async function enqueueLogout(
  db: Database,
  realmId: string,
  clientId: string,
  subject: string,
  sid: string | null,
): Promise<void> {
  await db.insert(oidcLogouts).values({ realmId, clientId, subject, sid });
}

/** Claims up to `limit` due logouts, counted as an attempt and leased, in one statement. */
export async function claimDueLogouts(db: Database, limit: number): Promise<LogoutRow[]> {
  const due = db
    .select({ id: oidcLogouts.id })
    .from(oidcLogouts)
    .where(lte(oidcLogouts.nextAttemptAt, sql`now()`))
    .orderBy(asc(oidcLogouts.nextAttemptAt), asc(oidcLogouts.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(oidcLogouts)
    .set({ attempts: sql`${oidcLogouts.attempts} + 1`, nextAttemptAt: fromNow(LEASE_MS) })
    .where(inArray(oidcLogouts.id, due))
    .returning();
}

/** Delivered, or nothing left to deliver (the app is gone or asks for no back-channel logout). */
export async function logoutDone(db: Database, id: number): Promise<void> {
  await db.delete(oidcLogouts).where(eq(oidcLogouts.id, id));
}

/** A failed try: retried after the back-off, or given up (deleted) after the last. Returns whether it was given up. */
export async function logoutFailed(db: Database, row: LogoutRow): Promise<boolean> {
  if (row.attempts >= LOGOUT_MAX_ATTEMPTS) {
    await logoutDone(db, row.id);
    return true;
  }
  await db
    .update(oidcLogouts)
    .set({ nextAttemptAt: fromNow(RETRY_BASE_MS * 2 ** (row.attempts - 1)) })
    .where(and(eq(oidcLogouts.id, row.id), eq(oidcLogouts.attempts, row.attempts)));
  return false;
}
