import { threadId } from 'node:worker_threads';
import { STRONG, uniqueEmail, testDrivers } from '@accounts/testing';
import { users } from '@accounts/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createHasher } from '../src/credentials/password-hashing.js';
import { problemOf, useHarness } from './harness.js';

describe('the hashing pool', () => {
  // How long the event loop stalls under hashing is a timing, measured by the benchmark
  // (event-loop delay p99); here, where the work runs.
  it('hashes on worker threads, never on the main thread', async () => {
    const hasher = await createHasher({ cost: 4, pepper: 'p', workers: 2 });
    expect(threadId).toBe(0);
    expect(await hasher.workerThreadId()).toBeGreaterThan(0);
    const hashes = await Promise.all(Array.from({ length: 8 }, (_, i) => hasher.hash(`password number ${i}`)));
    expect(new Set(hashes).size).toBe(8);
    await hasher.close();
  });

  it('runs the hashing threads at a lower priority than the event loop', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const niceOf = (task: string) => {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const before = readdirSync('/proc/self/task').filter((t) => niceOf(t) === 10).length;
    const hasher = await createHasher({ cost: 4, pepper: 'p', workers: 2 });
    await Promise.all([hasher.hash('a'), hasher.hash('b'), hasher.hash('c'), hasher.hash('d')]);
    expect(niceOf(String(process.pid))).toBe(0);
    // Both hashing threads (and any thread they start, such as the TypeScript loader's when the
    // worker runs from sources) run at nice 10.
    expect(readdirSync('/proc/self/task').filter((t) => niceOf(t) === 10).length - before).toBeGreaterThanOrEqual(2);
    await hasher.close();
  });

  it('estimates new passwords on one low-priority thread of its own, started by the first estimate', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const lowPriority = () =>
      readdirSync('/proc/self/task').filter((t) => {
        const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === 10;
      }).length;
    const hasher = await createHasher({ cost: 4, pepper: 'p', workers: 1 });
    await hasher.hash('warm');
    const withHashing = lowPriority();
    const context = { name: 'Rosa Parks', email: 'rosa@example.com', realm: 'default' };
    const verdicts = await Promise.all([
      hasher.judge('123456789012345', context),
      hasher.judge('rosaparks rosaparks', context),
      hasher.judge('rosaline tractor sings at midnight', context),
    ]);
    expect(verdicts).toEqual(['password_too_common', 'password_too_similar', 'ok']);
    expect(lowPriority()).toBeGreaterThan(withHashing);
    await hasher.close();
  });

  it('refuses work past the queue bound at once with server_busy', async () => {
    const hasher = await createHasher({ cost: 10, pepper: 'p', workers: 1, queueMax: 2 });
    const finished: string[] = [];
    const running = ['a', 'b', 'c'].map((p) => hasher.hash(p).then(() => void finished.push(p))); // one runs, two wait
    expect(() => hasher.assertCapacity()).toThrow();
    expect((await problemOf(hasher.hash('d'))).code).toBe('server_busy');
    // Refused without waiting for a place: none of the queued hashes had finished.
    expect(finished).toEqual([]);
    await Promise.all(running);
    expect(finished).toHaveLength(3);
    expect(() => hasher.assertCapacity()).not.toThrow();
    await hasher.close();
  });
});

describe.each(testDrivers())('load shedding on %s', (driver) => {
  const h = useHarness(driver);

  it('answers a registration that finds the queue full with 503 server_busy, before any database write', async () => {
    const count = async () => (await h.db.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]!.n;
    const before = await count();
    const real = h.hasher;
    h.hasher = await createHasher({ cost: 12, pepper: 'test-pepper', workers: 1, queueMax: 1 });
    try {
      const blockers = [h.hasher.hash('x'), h.hasher.hash('y')];
      const p = await problemOf(
        h.caller().account.register({ name: 'Busy', email: uniqueEmail('busy'), password: STRONG, password2: STRONG }),
      );
      expect(p).toMatchObject({ status: 503, code: 'server_busy', retryAfter: 2 });
      expect(await count()).toBe(before);
      await Promise.all(blockers);
    } finally {
      await h.hasher.close();
      h.hasher = real;
    }
  });
});
