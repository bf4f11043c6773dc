import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { testDrivers } from '@accounts/db/testing';
import { users } from '@accounts/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createHasher } from '../src/password-hashing.js';
import { problemOf, STRONG, uniqueEmail, useHarness } from './harness.js';

describe('the hashing pool', () => {
  it('hashes on worker threads, never on the main thread, and keeps the event loop free', async () => {
    const hasher = await createHasher({ cost: 10, pepper: 'p', workers: 2 });
    expect(threadId).toBe(0);
    expect(await hasher.workerThreadId()).toBeGreaterThan(0);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const hashes = await Promise.all(Array.from({ length: 8 }, (_, i) => hasher.hash(`password number ${i}`)));
    delay.disable();
    expect(new Set(hashes).size).toBe(8);
    // bcrypt at cost 10 takes ~70 ms a hash: on the main thread the loop would stall for hundreds of ms.
    expect(delay.max / 1e6).toBeLessThan(60);
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
    expect(readdirSync('/proc/self/task').filter((t) => niceOf(t) === 10).length - before).toBe(2);
    await hasher.close();
  });

  it('refuses work past the queue bound at once with server_busy', async () => {
    const hasher = await createHasher({ cost: 10, pepper: 'p', workers: 1, queueMax: 2 });
    const running = [hasher.hash('a'), hasher.hash('b'), hasher.hash('c')]; // one runs, two wait
    const started = Date.now();
    expect(() => hasher.assertCapacity()).toThrow();
    expect((await problemOf(hasher.hash('d'))).code).toBe('server_busy');
    expect(Date.now() - started).toBeLessThan(50);
    await Promise.all(running);
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
      const p = await problemOf(h.caller().account.register({ name: 'Busy', email: uniqueEmail('busy'), password: STRONG, password2: STRONG }));
      expect(p).toMatchObject({ status: 503, code: 'server_busy', retryAfter: 2 });
      expect(await count()).toBe(before);
      await Promise.all(blockers);
    } finally {
      await h.hasher.close();
      h.hasher = real;
    }
  });
});
