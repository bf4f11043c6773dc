import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { PasswordContext, PasswordVerdict } from '@accounts/validators';
import { ProblemError } from './errors.js';
import type { HashingObserver, HashingPool } from './observers.js';

// Stored form: "<scheme>$<bcrypt string>", e.g. "bcrypt-hmac-sha384$2b$11$...". The scheme names
// the pre-hash and the bcrypt string carries its cost, so old hashes can be recognised and upgraded.
const SCHEME = 'bcrypt-hmac-sha384';

export interface HasherOptions {
  cost: number;
  pepper: string;
  /** Worker threads; default: one per core. */
  workers?: number;
  /** Hashing tasks (and, separately, estimates) allowed to wait for a thread; past it, callers get server_busy at once. */
  queueMax?: number;
  /** Told each task's wait and run time (metrics, traces); none: tasks are not timed. */
  observer?: HashingObserver;
}

/** What the pools hold now and have refused so far: read, never changed, by whoever reports them. */
export interface HasherStats {
  workers: number;
  /** Hashing tasks (bcrypt) waiting for a thread. */
  queued: number;
  queueMax: number;
  /** Password estimates waiting for the estimating thread. */
  estimatesQueued: number;
  /** Requests refused with server_busy since the start, because a queue was full. */
  refused: number;
}

export interface Hasher {
  readonly cost: number;
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Compares against a throwaway hash, so an unknown account costs as much time as a known one. */
  verifyDummy(password: string): Promise<void>;
  needsRehash(stored: string): boolean;
  /** The password rule's verdict on how easy a new password is to guess, estimated on the estimating thread. */
  judge(password: string, context: PasswordContext): Promise<PasswordVerdict>;
  /** Throws server_busy when `slots` hashing tasks (bcrypt runs) would not find room in the queue. */
  assertCapacity(slots?: number): void;
  stats(): HasherStats;
  /** The thread a task runs on (never the main thread's 0). */
  workerThreadId(): Promise<number>;
  close(): Promise<void>;
}

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

export function costOf(stored: string): number | undefined {
  const m = /^bcrypt-hmac-sha384\$2[aby]\$(\d\d)\$/.exec(stored);
  return m ? Number(m[1]) : undefined;
}

/** How long the estimating thread stays after its last estimate; then its ~65 MB are given back. */
const ESTIMATOR_IDLE_MS = 10 * 60_000;

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
  });
  // The estimate of a new password (zxcvbn-ts) runs on a thread of its own: its dictionaries are
  // loaded once, not once per hashing thread, and only while new passwords are coming in.
  const estimating = new Piscina({
    filename: worker,
    minThreads: 0,
    maxThreads: 1,
    maxQueue: queueMax,
    idleTimeout: ESTIMATOR_IDLE_MS,
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
  const hash = async (password: string) =>
    `${SCHEME}${await run<string>('hashing', { op: 'hash', password, pepper: opts.pepper, cost: opts.cost })}`;
  const verify = async (password: string, stored: string) => {
    if (costOf(stored) === undefined) return false;
    return run<boolean>('hashing', {
      op: 'verify',
      password,
      pepper: opts.pepper,
      hash: stored.slice(SCHEME.length),
      padToCost: opts.cost,
    });
  };
  const dummy = await hash(`dummy-${Math.random()}`);
  return {
    cost: opts.cost,
    hash,
    verify,
    verifyDummy: async (password) => void (await verify(password, dummy)),
    needsRehash: (stored) => costOf(stored) !== opts.cost,
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
