import { createHash } from 'node:crypto';
import { and, desc, eq, gt, inArray } from 'drizzle-orm';
import { accountEvents, type Database } from '@accounts/db';
import type { AccountConfig } from './config.js';
import { ProblemError } from './errors.js';
import type { AccountEventType, EventSource } from './events.js';

// Sign-in and current_password failures share one counter per account. It is read from the
// account events in the database, so every instance of the service sees the same count.
const FAILURES = ['sign_in_failed', 'password_change_failed'] as const;

/** Whose counter a check runs against. */
export interface LockoutSubject {
  userId: string | null;
  key: string;
}

/**
 * An account counts failures under its id; an email with no account here counts them under a
 * digest of realm and email, so it locks after as many guesses as a real account would and the
 * lockout itself does not tell whether the account exists.
 */
export function lockoutSubject(realmId: string, email: string, userId: string | null): LockoutSubject {
  if (userId) return { userId, key: userId };
  return { userId: null, key: `email:${createHash('sha256').update(`${realmId}\n${email}`).digest('hex')}` };
}

/** A password check that holds a place under the account's limit until it is settled. */
export interface PasswordCheck {
  /** The password was right: the claim becomes the success event (pass the transaction that acts on it). */
  passed(tx: Database, outcome: AccountEventType): Promise<void>;
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
  subject: LockoutSubject,
  config: AccountConfig,
): Promise<PasswordCheck> {
  const [claim] = await db
    .insert(accountEvents)
    .values({ realmId: src.realmId, userId: subject.userId, lockoutKey: subject.key, type, clientIp: src.clientIp })
    .returning({ id: accountEvents.id });
  const withdraw = async (tx: Database = db) => void (await tx.delete(accountEvents).where(eq(accountEvents.id, claim!.id)));
  const since = new Date(Date.now() - config.failureWindowMs);
  const [over] = await db
    .select({ at: accountEvents.createdAt })
    .from(accountEvents)
    .where(and(eq(accountEvents.lockoutKey, subject.key), inArray(accountEvents.type, FAILURES), gt(accountEvents.createdAt, since)))
    .orderBy(desc(accountEvents.createdAt))
    .limit(1)
    .offset(config.maxPasswordFailures);
  if (over) {
    await withdraw();
    const retryAfter = Math.max(1, Math.ceil((over.at.getTime() + config.failureWindowMs - Date.now()) / 1000));
    throw new ProblemError('too_many_attempts', { retryAfter });
  }
  return {
    // One statement instead of a delete and an insert: the claim row is the success event.
    passed: async (tx, outcome) => void (await tx.update(accountEvents).set({ type: outcome }).where(eq(accountEvents.id, claim!.id))),
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
