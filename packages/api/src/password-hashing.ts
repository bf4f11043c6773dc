import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { PasswordContext, PasswordVerdict } from '@accounts/validators';
import { ProblemError } from './errors.js';

// Stored form: "<scheme>$<bcrypt string>", e.g. "bcrypt-hmac-sha384$2b$11$...". The scheme names
// the pre-hash and the bcrypt string carries its cost, so old hashes can be recognised and upgraded.
const SCHEME = 'bcrypt-hmac-sha384';

export interface HasherOptions {
  cost: number;
  pepper: string;
  /** Worker threads; default: one per core. */
  workers?: number;
  /** Hashing tasks allowed to wait for a thread; past it, callers get server_busy at once. */
  queueMax?: number;
}

export interface Hasher {
  readonly cost: number;
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Compares against a throwaway hash, so an unknown account costs as much time as a known one. */
  verifyDummy(password: string): Promise<void>;
  needsRehash(stored: string): boolean;
  /** The password rule's verdict on how easy a new password is to guess, estimated on a worker thread. */
  judge(password: string, context: PasswordContext): Promise<PasswordVerdict>;
  /** Throws server_busy when a hashing task would not find room in the queue. */
  assertCapacity(slots?: number): void;
  stats(): { workers: number; queued: number; queueMax: number };
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

export async function createHasher(opts: HasherOptions): Promise<Hasher> {
  const workers = opts.workers ?? defaultWorkers();
  // A registration queues two tasks (the password's estimate, then its hash): 32 of them per thread.
  const queueMax = opts.queueMax ?? workers * 64;
  const pool = new Piscina({
    filename: new URL('./hash-worker.js', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    maxQueue: queueMax,
    idleTimeout: 60_000,
  });
  const run = async <T>(task: object): Promise<T> => {
    try {
      return (await pool.run(task)) as T;
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) throw new ProblemError('server_busy', { retryAfter: 2 });
      throw err;
    }
  };
  const hash = async (password: string) =>
    `${SCHEME}${await run<string>({ op: 'hash', password, pepper: opts.pepper, cost: opts.cost })}`;
  const verify = async (password: string, stored: string) => {
    if (costOf(stored) === undefined) return false;
    return run<boolean>({ op: 'verify', password, pepper: opts.pepper, hash: stored.slice(SCHEME.length), padToCost: opts.cost });
  };
  const dummy = await hash(`dummy-${Math.random()}`);
  // Ready to serve only once every thread has its password estimator (about 0.3 s to load).
  await Promise.all(Array.from({ length: workers }, () => run({ op: 'judge', password: 'warm-up', context: { name: '', email: '', realm: '' } })));
  return {
    cost: opts.cost,
    hash,
    verify,
    verifyDummy: async (password) => void (await verify(password, dummy)),
    needsRehash: (stored) => costOf(stored) !== opts.cost,
    judge: (password, context) => run<PasswordVerdict>({ op: 'judge', password, context }),
    assertCapacity(slots = 1) {
      // A request needing more slots than the whole queue still runs when nothing waits.
      if (pool.queueSize + slots > Math.max(queueMax, slots)) throw new ProblemError('server_busy', { retryAfter: 2 });
    },
    stats: () => ({ workers, queued: pool.queueSize, queueMax }),
    workerThreadId: () => run<number>({ op: 'thread' }),
    // Lets tasks already running finish (a graceful stop), then ends the threads.
    close: () => pool.close(),
  };
}
