import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '@accounts/db';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { STRONG, uniqueEmail } from '../support/gateway.js';
import { emailsIn, halfWritten, registrationLoad } from '../support/load.js';
import { createCluster, privateClusterAvailable } from '../support/pg-cluster.js';
import { spawnGateway } from '../support/process.js';

// PostgreSQL going away under load: the gateway answers 503 at once while it is gone, says so
// on /readyz, does not crash, and serves again by itself when the database is back. Nothing
// acknowledged is lost and nothing refused is half-written.

describe('a gateway whose PostgreSQL cannot be reached at start', () => {
  it('exits 1 with a short message that names no secret, instead of hanging', { timeout: 30_000 }, async () => {
    const started = spawnGateway({ DATABASE_URL: 'postgres://accounts:s3cret-pw@127.0.0.1:1/accounts' }, 20_000);
    const err = await started.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited \(1\) before listening/);
    expect(err?.message).toMatch(/failed to start/);
    expect(err?.message).not.toContain('s3cret-pw');
    expect(err?.message).not.toMatch(/\n\s+at /); // no stack trace
  });
});

// Only with a PostgreSQL to test against (CI), and a private cluster this test may stop.
if (process.env.TEST_DATABASE_URL && privateClusterAvailable()) {
  describe('PostgreSQL stopped under load', () => {
    it(
      'fails fast with 503 while it is down, recovers by itself, and keeps every acknowledged registration',
      { timeout: 180_000 },
      async () => {
        const cluster = await createCluster();
        let gw: Awaited<ReturnType<typeof spawnGateway>> | undefined;
        try {
          const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
          await admin`create database accounts`;
          await admin.end();
          const url = cluster.url.replace(/\/postgres$/, '/accounts');
          gw = await spawnGateway({ DATABASE_URL: url, HASH_WORKERS: '2', RATE_LIMIT_SIGN_IN: '0' });
          const client = gw.client;

          let phase: 'up' | 'stopping' | 'down' | 'starting' | 'back' = 'up';
          let done = false;
          // Registrations acknowledged in each phase, so the test waits for progress, not for a time.
          const acknowledged = new Map<string, number>();
          const onOutcome = (o: { status: number; label?: string }) =>
            void (o.status === 201 && acknowledged.set(o.label!, (acknowledged.get(o.label!) ?? 0) + 1));
          const registered = async (p: string, n: number) => {
            for (const deadline = Date.now() + 60_000; (acknowledged.get(p) ?? 0) < n; await sleep(50))
              if (Date.now() > deadline) throw new Error(`fewer than ${n} registrations acknowledged in phase ${p}`);
          };
          const load = registrationLoad(client, {
            workers: 4,
            done: () => done,
            pauseMs: 10,
            label: () => phase,
            onOutcome,
          });
          // Each probe notes the phase it started and ended in: one may span the database's return.
          const readiness: { phase: string; status: number }[] = [];
          const probe = (async () => {
            while (!done) {
              const started = phase;
              const { status } = await client.send('GET', '/readyz');
              readiness.push({ phase: started === phase ? started : 'changing', status });
              await sleep(100);
            }
          })();
          // Sign-ins ask the database before any hashing (the lockout's claim), so they show how
          // fast a request that needs it is refused, however busy the hashing threads are.
          const signIns: { phase: string; status: number; ms: number }[] = [];
          const signing = Promise.all(
            [1, 2, 3].map(async () => {
              while (!done) {
                const [started, t0] = [phase, performance.now()];
                const { status } = await client.form('/users/login', {
                  email: uniqueEmail('outage'),
                  password: STRONG,
                });
                signIns.push({ phase: started === phase ? started : 'changing', status, ms: performance.now() - t0 });
                await sleep(50);
              }
            }),
          );

          await registered('up', 6);
          phase = 'stopping';
          await cluster.stop('fast');
          phase = 'down';
          await sleep(3000);
          expect(gw.child.exitCode, gw.logs.slice(-8).join('\n')).toBeNull();
          expect((await client.send('GET', '/healthz')).status).toBe(200);
          const downReady = await client.send('GET', '/readyz');
          expect(downReady.status).toBe(503);
          expect(downReady.json).toMatchObject({ code: 'not_ready' });

          // While the cluster starts it may already answer: that stretch belongs to no phase.
          phase = 'starting';
          await cluster.start();
          phase = 'back';
          // It must serve again without a restart: wait for /readyz, bounded.
          const [back, deadline] = [Date.now(), Date.now() + 20_000];
          while ((await client.send('GET', '/readyz')).status !== 200 && Date.now() < deadline) await sleep(50);
          const recoveryMs = Date.now() - back;
          await registered('back', 6);
          done = true;
          const outcomes = await load;
          await probe;
          await signing;

          const statuses = new Set(outcomes.map((o) => o.status));
          expect(
            [...statuses].every((s) => s === 201 || s === 503),
            `statuses seen: ${[...statuses].join(',')}`,
          ).toBe(true);
          const byPhase = (p: string) => outcomes.filter((o) => o.label === p);
          // Down: refusals, each answered quickly (no hanging on a dead connection). A registration
          // sent then may still be estimating its password when the database is back, and rightly
          // succeed (201 or 503 are both right, checked above); sign-ins need the database at once.
          const down = signIns.filter((o) => o.phase === 'down');
          expect(down.length).toBeGreaterThanOrEqual(4);
          expect(
            down.every((o) => o.status === 503),
            `sign-in statuses while down: ${down.map((o) => o.status).join(',')}`,
          ).toBe(true);
          const slowest = Math.max(...down.map((o) => o.ms));
          expect(slowest, 'slowest 503 while the database was down (ms)').toBeLessThan(2000);
          const upSignIns = signIns.filter((o) => o.phase === 'up').map((o) => o.status);
          expect(
            upSignIns.every((s) => s === 422),
            `sign-in statuses before: ${upSignIns.join(',')}`,
          ).toBe(true);
          expect(recoveryMs).toBeLessThan(5000);
          console.info(
            `PostgreSQL down: ${down.length} sign-ins, slowest 503 ${Math.round(slowest)} ms; ready again ${recoveryMs} ms after it was back`,
          );
          expect(readiness.filter((r) => r.phase === 'down').map((r) => r.status)).toEqual(
            expect.arrayContaining([503]),
          );
          expect(readiness.filter((r) => r.phase === 'down').every((r) => r.status === 503)).toBe(true);
          // Back: registrations succeed again in the same process.
          expect(byPhase('back').filter((o) => o.status === 201).length).toBeGreaterThan(5);
          expect(byPhase('up').filter((o) => o.status === 201).length).toBeGreaterThan(5);
          expect(gw.child.exitCode).toBeNull();
          expect(gw.logs.filter((l) => l.includes('"level":50'))).toEqual([]);

          const db = await openDatabase({ url, poolSize: 1 });
          try {
            expect(await halfWritten(db.db)).toEqual([]);
            const stored = await emailsIn(db.db);
            const lost = outcomes.filter((o) => o.status === 201 && !stored.has(o.email));
            expect(lost).toEqual([]);
          } finally {
            await db.close();
          }
          expect((await gw.stop()).code).toBe(0);
        } finally {
          gw?.child.kill('SIGKILL');
          await cluster.destroy();
        }
      },
    );
  });
}
