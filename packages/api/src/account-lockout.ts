import { and, desc, eq, gt, inArray } from 'drizzle-orm';
import { accountEvents, type Database } from '@accounts/db';
import type { AccountConfig } from './config.js';
import { ProblemError } from './errors.js';
import type { EventSource } from './events.js';

// Sign-in and current_password failures share one counter per account. It is read from the
// account events in the database, so every instance of the service sees the same count.
const FAILURES = ['sign_in_failed', 'password_change_failed'] as const;
// Counted for an unknown email, so that path runs the same queries; no user has this id.
const NO_USER = '00000000-0000-0000-0000-000000000000';

/** A password check that holds a place under the account's limit until it is settled. */
export interface PasswordCheck {
  /** The password was right: the claim is withdrawn (pass the transaction that acts on it). */
  passed(tx: Database): Promise<void>;
  /** Runs the hashing; if it fails for another reason (busy, outage), the claim is withdrawn. */
  during<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Claims one password check before any hashing. The claim is written first as the failure it
 * becomes if the password is wrong, then the failures in the window are counted, own claim
 * included. Because each check counts only after its own claim is committed, the k-th claim
 * sees at least k: a burst of concurrent guesses (on any instance) gets no more than
 * maxPasswordFailures checks through. Over the limit it refuses with 429, withdrawing the
 * claim; Retry-After says when the oldest counted failure leaves the window.
 */
export async function claimPasswordCheck(
  db: Database,
  src: EventSource,
  type: (typeof FAILURES)[number],
  userId: string | null,
  config: AccountConfig,
): Promise<PasswordCheck> {
  const [claim] = await db.insert(accountEvents).values({ realmId: src.realmId, userId, type, clientIp: src.clientIp }).returning({ id: accountEvents.id });
  const withdraw = async (tx: Database = db) => void (await tx.delete(accountEvents).where(eq(accountEvents.id, claim!.id)));
  const since = new Date(Date.now() - config.failureWindowMs);
  const [over] = await db
    .select({ at: accountEvents.createdAt })
    .from(accountEvents)
    .where(and(eq(accountEvents.userId, userId ?? NO_USER), inArray(accountEvents.type, FAILURES), gt(accountEvents.createdAt, since)))
    .orderBy(desc(accountEvents.createdAt))
    .limit(1)
    .offset(config.maxPasswordFailures);
  if (over) {
    await withdraw();
    const retryAfter = Math.max(1, Math.ceil((over.at.getTime() + config.failureWindowMs - Date.now()) / 1000));
    throw new ProblemError('too_many_attempts', { retryAfter });
  }
  return {
    passed: withdraw,
    async during(work) {
      try {
        return await work();
      } catch (err) {
        await withdraw().catch(() => {});
        throw err;
      }
    },
  };
}
