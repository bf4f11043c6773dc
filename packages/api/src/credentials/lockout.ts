import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, desc, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import { accountEvents, users, type Database } from '@accounts/db';
import type { AccountConfig } from '../kernel/config.js';
import { ago, secondsUntilOut } from '../kernel/db-time.js';
import { addressKey, keptUserAgent } from '../kernel/device.js';
import { ProblemError } from '../kernel/errors.js';
import type { AccountEventType, EventSource } from '../records/events.js';

// Failed checks (passwords at sign-in and as current_password, second-step codes, passkeys) are
// counted per account AND client, from the account events in the database, so every instance sees
// the same counts and every window is measured by the database's clock. A client is refused for an
// account after maxPasswordFailures within the window; clients that are not known devices of the
// account share one more cap (accountFailureCap within accountCapWindowMs), which known devices
// ignore except at the second step, so the owner's own browser is never locked out by anyone
// else's password guesses.

/**
 * Guesses at the password: a new one (changed or reset, stamped in users.password_changed_at)
 * leaves them nothing to guess, so they count only when younger than it. That lifts a lockout
 * its owner ended by proving the mailbox, without deleting any event.
 */
const PASSWORD_FAILURES = ['sign_in_failed', 'password_change_failed'] as const;
/**
 * Guesses at a second step, by someone who knows the password: every client's count in the
 * account-wide cap, known devices' too (each device known before the step was turned on would
 * otherwise bring guesses of its own). They, and failed passkeys, count across a new password:
 * a reset does not buy more code guesses.
 */
const SECOND_STEP_FAILURES = ['second_factor_failed'] as const;
const FAILURES = [...PASSWORD_FAILURES, ...SECOND_STEP_FAILURES, 'passkey_failed', 'upstream_failed'] as const;
export type FailureType = (typeof FAILURES)[number];

/**
 * A refused check is recorded (sign_in_blocked, password_check_blocked) at most this many times
 * per account and client within the failure window; past it the claim is withdrawn, so a client
 * hammering a locked account cannot flood the events table.
 */
export const BLOCKED_RECORDS_PER_WINDOW = 3;

/** A claim still pending after this long belongs to a process that died mid-check: it counts as a failure. */
const STALE_CLAIM_MS = 60_000;
/** How long a check may wait for earlier checks in flight to settle before it is refused. */
const MAX_WAIT_MS = 15_000;
const POLL_MS = 25;

/** Whose counters a check runs against. */
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

/** Which client a check comes from. Known devices are exempt from the account-wide cap for passwords. */
export interface LockoutClient {
  key: string;
  knownDevice: boolean;
}

export const deviceClient = (tokenHash: string): LockoutClient => ({ key: `d:${tokenHash}`, knownDevice: true });
export const sessionClient = (sessionId: string): LockoutClient => ({ key: `s:${sessionId}`, knownDevice: false });

/** A client known only by its address (grouped: kernel/device.ts). */
export function addressClient(ip: string | null): LockoutClient {
  return { key: addressKey(ip), knownDevice: false };
}

/** A password check that holds a place under the limits until it is settled. */
export interface ClaimedCheck {
  /** The password was right: the claim becomes the success event (pass the transaction that acts on it). */
  passed(tx: Database, outcome: AccountEventType): Promise<void>;
  /** The password (or, with `as`, what was checked with it) was wrong: the claim becomes a counted failure. */
  failed(as?: FailureType): Promise<void>;
  /** The password was right but nothing was done (what it was for is gone): the claim is withdrawn. */
  withdraw(): Promise<void>;
  /** Runs the hashing; if it fails for another reason (busy, outage), the claim is withdrawn. */
  during<T>(work: () => Promise<T>): Promise<T>;
  /** Where this client stands once its checks have settled (after `failed`, say). */
  standing(): Promise<Standing>;
}

export interface Standing {
  /** Failed checks this client has left before the lockout refuses it (0: it is refused now). */
  left: number;
  /** At none left: seconds, by the database's clock, until it may check again; else 0. */
  retryAfter: number;
}

export interface ClaimOptions {
  subject: LockoutSubject;
  client: LockoutClient;
  /** False for a signed-in session's own checks: other clients' failures never refuse them. */
  accountCap: boolean;
}

/**
 * Claims one password check before any hashing. The claim is written first, pending; then the
 * failures in the windows are counted. A check goes ahead when the settled failures plus the
 * claims in flight before it (by id) stay under the limits, so a burst of concurrent guesses on
 * any number of instances gets no more checks through than the limits. A claim in flight is
 * not a failure: when only claims in flight stand in the way, the check waits for them to
 * settle, so several correct sign-ins at once all succeed. Over a limit it refuses with 429,
 * withdrawing the claim; Retry-After says when the oldest counted failure leaves the window.
 */
export async function claimCheck(
  db: Database,
  src: EventSource,
  type: FailureType,
  { subject, client, accountCap }: ClaimOptions,
  config: AccountConfig,
): Promise<ClaimedCheck> {
  const [claim] = await db
    .insert(accountEvents)
    .values({
      realmId: src.realmId,
      userId: subject.userId,
      lockoutKey: subject.key,
      clientKey: client.key,
      type,
      clientIp: src.clientIp,
      userAgent: keptUserAgent(src.userAgent),
      requestId: src.requestId ?? null,
      pending: true,
    })
    .returning({ id: accountEvents.id });
  const id = claim!.id;
  const withdraw = async (tx: Database = db) => void (await tx.delete(accountEvents).where(eq(accountEvents.id, id)));
  const secondStep = (SECOND_STEP_FAILURES as readonly string[]).includes(type);
  // Known devices are spared the account-wide cap, but not at the second step (see SECOND_STEP_FAILURES).
  const capped = accountCap && (!client.knownDevice || secondStep);
  // A refusal by the lockout: the claim becomes the record of a blocked attempt (the owner's
  // activity shows it), within a bound per account and client; past it, it is withdrawn.
  const blockedType = type === 'sign_in_failed' ? 'sign_in_blocked' : 'password_check_blocked';
  const recordBlocked = async () => {
    const [seen] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(accountEvents)
      .where(
        and(
          eq(accountEvents.lockoutKey, subject.key),
          eq(accountEvents.clientKey, client.key),
          eq(accountEvents.type, blockedType),
          sql`${accountEvents.createdAt} > ${ago(config.failureWindowMs)}`,
        ),
      );
    if ((seen?.n ?? 0) >= BLOCKED_RECORDS_PER_WINDOW) return withdraw();
    await db.update(accountEvents).set({ type: blockedType, pending: false }).where(eq(accountEvents.id, id));
  };
  const limits = {
    client: { max: config.maxPasswordFailures, windowMs: config.failureWindowMs },
    account: { max: config.accountFailureCap, windowMs: config.accountCapWindowMs },
  };

  const stale = sql`${accountEvents.createdAt} < ${ago(STALE_CLAIM_MS)}`;
  const settled = sql`(not ${accountEvents.pending} or ${stale})`;
  const inFlightBefore = sql`(${accountEvents.pending} and not ${stale} and ${accountEvents.id} < ${id})`;
  const ofClient = sql`(${accountEvents.clientKey} = ${client.key} and ${accountEvents.createdAt} > ${ago(limits.client.windowMs)})`;
  const ofAccount = sql`((${accountEvents.clientKey} not like 'd:%' or ${inArray(accountEvents.type, SECOND_STEP_FAILURES)}) and ${accountEvents.createdAt} > ${ago(limits.account.windowMs)})`;
  // An unknown email has no password to change: all its failures count.
  const againstThisPassword = subject.userId
    ? sql`(${notInArray(accountEvents.type, [...PASSWORD_FAILURES])} or ${accountEvents.createdAt} >= (select ${users.passwordChangedAt} from ${users} where ${users.id} = ${subject.userId}))`
    : undefined;
  const count = (where: SQL) => sql<number>`count(*) filter (where ${where})`.mapWith(Number);
  const failuresOf = (scope: SQL) =>
    and(eq(accountEvents.lockoutKey, subject.key), inArray(accountEvents.type, FAILURES), againstThisPassword, scope);
  const over = (c: { client: number; account: number }) => ({
    client: c.client >= limits.client.max,
    account: capped && c.account >= limits.account.max,
  });
  /** Seconds until every limit the client is over has room again. */
  const waitFor = async (o: { client: boolean; account: boolean }) => {
    const waits = await Promise.all([
      o.client
        ? retryAfter(db, failuresOf(sql`${ofClient} and ${settled}`), limits.client.max, limits.client.windowMs)
        : 0,
      o.account
        ? retryAfter(db, failuresOf(sql`${ofAccount} and ${settled}`), limits.account.max, limits.account.windowMs)
        : 0,
    ]);
    return Math.max(1, ...waits);
  };

  try {
    const deadline = Date.now() + MAX_WAIT_MS; // a local bound on waiting, not a lockout window
    for (;;) {
      const [c] = await db
        .select({
          client: count(sql`${ofClient} and ${settled}`),
          clientInFlight: count(sql`${ofClient} and ${inFlightBefore}`),
          account: count(sql`${ofAccount} and ${settled}`),
          accountInFlight: count(sql`${ofAccount} and ${inFlightBefore}`),
        })
        .from(accountEvents)
        .where(failuresOf(sql`(${ofClient} or ${ofAccount})`));
      const o = over(c!);
      if (o.client || o.account) throw new ProblemError('too_many_attempts', { retryAfter: await waitFor(o) });
      const clientFree = c!.client + c!.clientInFlight < limits.client.max;
      const accountFree = !capped || c!.account + c!.accountInFlight < limits.account.max;
      if (clientFree && accountFree) break;
      if (Date.now() > deadline) throw new ProblemError('too_many_attempts', { retryAfter: 1 });
      await sleep(POLL_MS);
    }
  } catch (err) {
    const blocked = err instanceof ProblemError && err.problem === 'too_many_attempts';
    await (blocked ? recordBlocked() : withdraw()).catch(() => {});
    throw err;
  }

  return {
    // One statement: the claim row becomes the success event.
    passed: async (tx, outcome) =>
      void (await tx.update(accountEvents).set({ type: outcome, pending: false }).where(eq(accountEvents.id, id))),
    failed: async (as = type) =>
      void (await db.update(accountEvents).set({ type: as, pending: false }).where(eq(accountEvents.id, id))),
    withdraw: () => withdraw(),
    async during(work) {
      try {
        return await work();
      } catch (err) {
        await withdraw().catch(() => {});
        throw err;
      }
    },
    async standing() {
      const [c] = await db
        .select({ client: count(ofClient), account: count(ofAccount) })
        .from(accountEvents)
        .where(failuresOf(sql`${settled} and (${ofClient} or ${ofAccount})`));
      const left = Math.min(limits.client.max - c!.client, capped ? limits.account.max - c!.account : Infinity);
      if (left > 0) return { left, retryAfter: 0 };
      return { left: 0, retryAfter: await waitFor(over(c!)) };
    },
  };
}

/** Seconds, by the database's clock, until the failure that keeps the count at `max` leaves the window. */
async function retryAfter(db: Database, where: SQL | undefined, max: number, windowMs: number): Promise<number> {
  const [row] = await db
    .select({ s: secondsUntilOut(accountEvents.createdAt, windowMs) })
    .from(accountEvents)
    .where(where)
    .orderBy(desc(accountEvents.createdAt))
    .limit(1)
    .offset(max - 1);
  return row?.s ?? 1;
}
