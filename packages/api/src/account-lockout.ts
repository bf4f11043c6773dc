import { and, desc, eq, gt, inArray } from 'drizzle-orm';
import { accountEvents, type Database } from '@accounts/db';
import type { AccountConfig } from './config.js';
import { ProblemError } from './errors.js';

// Sign-in and current_password failures share one counter per account. It is read from the
// account events in the database, so every instance of the service sees the same count.
const FAILURES = ['sign_in_failed', 'password_change_failed'];

/**
 * Refuses (429, before any hashing) while the account has had maxPasswordFailures failed checks
 * within the window; Retry-After says when the oldest of those leaves the window.
 */
export async function assertNotLockedOut(db: Database, userId: string, config: AccountConfig): Promise<void> {
  const since = new Date(Date.now() - config.failureWindowMs);
  const [nth] = await db
    .select({ at: accountEvents.createdAt })
    .from(accountEvents)
    .where(and(eq(accountEvents.userId, userId), inArray(accountEvents.type, FAILURES), gt(accountEvents.createdAt, since)))
    .orderBy(desc(accountEvents.createdAt))
    .limit(1)
    .offset(config.maxPasswordFailures - 1);
  if (!nth) return;
  const retryAfter = Math.max(1, Math.ceil((nth.at.getTime() + config.failureWindowMs - Date.now()) / 1000));
  throw new ProblemError('too_many_attempts', { retryAfter });
}
