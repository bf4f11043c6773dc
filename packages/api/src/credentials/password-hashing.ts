import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { PasswordVerdict } from '@accounts/validators';
import type { Hasher } from '../kernel/context.js';
import { ProblemError } from '../kernel/errors.js';
import type { HashingObserver, HashingPool } from '../kernel/observers.js';

// Stored form: "<scheme>:<pepper id>$<bcrypt string>", e.g. "bcrypt-hmac-sha384:1a2b3c4d$2b$11$...".
// The scheme names the pre-hash, the pepper id which pepper keyed it (so the pepper can be rotated)
// and the bcrypt string carries its cost, so old hashes can be recognised and upgraded. Hashes made
// before pepper ids ("bcrypt-hmac-sha384$2b$11$...") carry none: see legacyPeppers below.
const SCHEME = 'bcrypt-hmac-sha384';
const STORED = /^bcrypt-hmac-sha384(?::([0-9a-f]{8}))?(\$2[aby]\$(\d\d)\$.+)$/;

/**
 * The public pepper every installation used when PASSWORD_PEPPER was unset, before peppers were
 * generated: hashes without a pepper id may have been made with it (see legacyPeppers).
 */
export const PUBLIC_DEFAULT_PEPPER = 'accounts-default-pepper-set-PASSWORD_PEPPER';

/** A pepper's id in stored hashes: the first 8 hex digits of its SHA-256 (tells nothing of the pepper). */
export const pepperId = (pepper: string) => createHash('sha256').update(pepper).digest('hex').slice(0, 8);

/**
 * bcrypt's cost for recovery codes (never above the passwords'). A typed code is compared with each
 * of the account's unused codes, up to ten: at 8, a wrong code's ten compares (10 × 2^8 rounds) cost
 * about what one password check costs at the default 11 (2^11), where at 11 they would cost ten.
 * A code's 50 random bits (not a password's few) carry the rest: a search of a dump, SECRET_KEY in
 * hand, needs some 2^49 compares of cost 8 per code. Measured with `npx tsx scripts/code-cost.ts`
 * in packages/api (2 hashing threads, a busy 2-core machine): a password 308 ms, one code 51 ms,
 * a wrong code against ten 378 ms, ten codes issued 417 ms.
 */
export const RECOVERY_CODE_COST = 8;

export interface HasherOptions {
  cost: number;
  /** The current pepper: every new hash is made with it. */
  pepper: string;
  /** Earlier peppers, kept to verify hashes made with them (which are then re-hashed under the current one). */
  previousPeppers?: string[];
  /** Worker threads; default: one per core. */
  workers?: number;
  /** Hashing tasks (and, separately, estimates) allowed to wait for a thread; past it, callers get server_busy at once. */
  queueMax?: number;
  /** Told each task's wait and run time (metrics, traces); none: tasks are not timed. */
  observer?: HashingObserver;
}

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

export function costOf(stored: string): number | undefined {
  const m = STORED.exec(stored);
  return m ? Number(m[3]) : undefined;
}

/** The pepper id a stored hash names; null for a hash made before pepper ids, undefined for no hash of ours. */
export function pepperIdOf(stored: string): string | null | undefined {
  const m = STORED.exec(stored);
  return m ? (m[1] ?? null) : undefined;
}

/**
 * The peppers a hash without a pepper id may have been made with, in the order they are tried:
 * the current one, the previous ones, then the public default (installations that never set
 * PASSWORD_PEPPER used it). Such hashes exist only from before pepper ids; each is re-hashed
 * under the current pepper at its next sign-in, and the server counts those left at start-up.
 */
export const legacyPeppers = (pepper: string, previous: readonly string[] = []) => [
  ...new Set([pepper, ...previous, PUBLIC_DEFAULT_PEPPER]),
];

/** How long the estimating thread stays after its last estimate; then its ~95 MB are given back. */
const ESTIMATOR_IDLE_MS = 10 * 60_000;

/**
 * V8 lets a thread's young generation grow to 48 MB; these threads keep only one task's objects
 * alive at a time, so 12 MB (4 MB semi-spaces) is plenty and saves about 60 MB resident once the
 * estimating thread has run (docs/operations.md, "Memory").
 */
const resourceLimits = { maxYoungGenerationSizeMb: 12 };

export async function createHasher(opts: HasherOptions): Promise<Hasher> {
  const workers = opts.workers ?? defaultWorkers();
  const queueMax = opts.queueMax ?? workers * 32;
  const worker = new URL('./hash-worker.js', import.meta.url).href;
  const hashing = new Piscina({
    filename: worker,
    minThreads: workers,
    maxThreads: workers,
    maxQueue: queueMax,
    idleTimeout: 60_000,
    resourceLimits,
  });
  // The estimate of a new password (zxcvbn-ts) runs on a thread of its own: its dictionaries are
  // loaded once, not once per hashing thread, and only while new passwords are coming in.
  const estimating = new Piscina({
    filename: worker,
    minThreads: 0,
    maxThreads: 1,
    maxQueue: queueMax,
    idleTimeout: ESTIMATOR_IDLE_MS,
    resourceLimits,
  });
  let refused = 0;
  const busy = () => {
    refused++;
    return new ProblemError('server_busy', { retryAfter: 2 });
  };
  const pools: Record<HashingPool, Piscina> = { hashing, estimating };
  const { observer } = opts;
  const run = async <T>(name: HashingPool, task: object): Promise<T> => {
    try {
      if (!observer) return (await pools[name].run(task)) as T;
      const queued = performance.timeOrigin + performance.now();
      const done = (await pools[name].run({ ...task, timed: true })) as { value: T; began: number; ended: number };
      observer.task(name, { queued, began: done.began, ended: done.ended });
      return done.value;
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) throw busy();
      throw err;
    }
  };
  const currentId = pepperId(opts.pepper);
  const byId = new Map([...(opts.previousPeppers ?? []), opts.pepper].map((p) => [pepperId(p), p]));
  const legacy = legacyPeppers(opts.pepper, opts.previousPeppers);
  const hash = async (password: string) =>
    `${SCHEME}:${currentId}${await run<string>('hashing', { op: 'hash', password, pepper: opts.pepper, cost: opts.cost })}`;
  const verify = async (password: string, stored: string) => {
    const m = STORED.exec(stored);
    if (!m) return false;
    // A pepper no longer kept verifies nothing; it is checked against the current one all the
    // same, so the answer takes as long as any other.
    const peppers = m[1] === undefined ? legacy : [byId.get(m[1]) ?? opts.pepper];
    const known = m[1] === undefined || byId.has(m[1]);
    const ok = await run<boolean>('hashing', { op: 'verify', password, peppers, hash: m[2], padToCost: opts.cost });
    return ok && known;
  };
  const dummy = await hash(`dummy-${Math.random()}`);
  return {
    cost: opts.cost,
    pepperId: currentId,
    hash,
    verify,
    verifyDummy: async (password) => void (await verify(password, dummy)),
    // An older cost, or another pepper (a previous one, or none recorded): re-hashed at sign-in.
    needsRehash: (stored) => costOf(stored) !== opts.cost || pepperIdOf(stored) !== currentId,
    hashCode: (digest) =>
      run<string>('hashing', { op: 'hashCode', digest, cost: Math.min(opts.cost, RECOVERY_CODE_COST) }),
    verifyCode: (digest, hash) => run<boolean>('hashing', { op: 'verifyCode', digest, hash }),
    judge: (password, context) => run<PasswordVerdict>('estimating', { op: 'judge', password, context }),
    assertCapacity(slots = 1) {
      // A request needing more slots than the whole queue still runs when nothing waits.
      if (hashing.queueSize + slots > Math.max(queueMax, slots) || estimating.queueSize >= queueMax) throw busy();
    },
    stats: () => ({ workers, queued: hashing.queueSize, queueMax, estimatesQueued: estimating.queueSize, refused }),
    workerThreadId: () => run<number>('hashing', { op: 'thread' }),
    // Lets tasks already running finish (a graceful stop), then ends the threads.
    close: async () => void (await Promise.all([hashing.close(), estimating.close()])),
  };
}
