import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, type DatabaseHandle, type Driver } from '@accounts/db';
import { createTestDatabase, seedDataDir, testDrivers, type TestDatabase } from '@accounts/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { registration, STRONG } from '../support/gateway.js';
import { canSignIn, emailsIn, halfWritten, registrationLoad } from '../support/load.js';
import type { Client } from '@accounts/testing';
import { spawnGateway, type GatewayProcess } from '../support/process.js';

// The gateway as a real process: killed with SIGKILL in the middle of a load and restarted,
// or stopped with SIGTERM while requests are in flight.

interface Storage {
  env: Record<string, string>;
  open(): Promise<DatabaseHandle>;
  cleanup(): Promise<void>;
  /** The handle belongs to the storage (PostgreSQL) and outlives each check. */
  keepOpen: boolean;
}

/** Where a process keeps its data: a PGlite directory, or a private PostgreSQL database. */
async function storage(driver: Driver): Promise<Storage> {
  if (driver === 'postgres') {
    const db: TestDatabase = await createTestDatabase('postgres');
    return {
      env: { DATABASE_URL: db.url! },
      open: (): Promise<DatabaseHandle> => Promise.resolve(db),
      cleanup: () => db.close(),
      keepOpen: true,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'accounts-pglite-'));
  await seedDataDir(dir);
  return {
    env: { DATA_DIR: dir },
    // Opening takes the directory lock, so only once no gateway runs on it.
    open: () => openDatabase({ dataDir: dir }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
    keepOpen: false,
  };
}

/** A cleanup that kills the process, in case the test ended before stopping it. */
const killOnCleanup = (gw: GatewayProcess) => () => {
  gw.child.kill('SIGKILL');
  return Promise.resolve();
};

const passwordNo = (k: number) => `${STRONG} ${k}`;

/** Changes one account's password again and again; remembers what was acknowledged. */
async function changeLoop(
  client: Client,
  email: string,
  cookie: string,
  done: () => boolean,
  progress: { changes: number },
) {
  const state = { email, acked: STRONG, pending: null as string | null, changes: 0 };
  for (let k = 1; k < 500 && !done(); k++) {
    const next = passwordNo(k);
    state.pending = next;
    const res = await client.form(
      '/users/change_password',
      { current_password: state.acked, new_password: next, confirm_password: next },
      { headers: { cookie } },
    );
    expect([0, 200], res.text).toContain(res.status);
    if (res.status === 0) return state; // unanswered: the change may or may not have happened
    state.acked = next;
    state.pending = null;
    state.changes++;
    progress.changes++;
    cookie = res.cookie!;
  }
  return state;
}

describe.each(testDrivers())('a gateway process on %s', (driver) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it(
    'loses no acknowledged registration or password change to SIGKILL, and restarts on the same data',
    { timeout: 300_000 },
    async () => {
      const store = await storage(driver);
      cleanups.push(() => store.cleanup());
      const env = { ...store.env, ACCOUNT_MAX_FAILURES: '1000', HASH_WORKERS: '2' };
      const first = await spawnGateway(env);
      cleanups.push(killOnCleanup(first));

      const changers = [];
      for (let i = 0; i < 6; i++) {
        const email = `changer.${i}.${Date.now()}@example.com`;
        const reg = await first.client.form('/users/register', registration(email));
        expect(reg.status).toBe(201);
        changers.push({ email, cookie: reg.cookie! });
      }

      let killed = false;
      const progress = { changes: 0, registrations: 0 };
      const registering = registrationLoad(first.client, {
        workers: 6,
        done: () => killed,
        tag: 'kill',
        onOutcome: (o) => void (o.status === 201 && progress.registrations++),
      });
      const changing = Promise.all(
        changers.map((c) => changeLoop(first.client, c.email, c.cookie, () => killed, progress)),
      );
      // Kill in the middle of the load, once it has made progress (however slow the machine is).
      const deadline = Date.now() + 60_000;
      while ((progress.changes <= 5 || progress.registrations <= 10) && Date.now() < deadline) await sleep(100);
      first.child.kill('SIGKILL');
      killed = true;
      expect((await first.exited).signal).toBe('SIGKILL');
      const [registrations, changes] = await Promise.all([registering, changing]);
      await first.client.close();

      const acked = registrations.filter((r) => r.status === 201);
      expect(acked.length).toBeGreaterThan(10);
      expect(changes.reduce((n, c) => n + c.changes, 0)).toBeGreaterThan(5);
      expect(
        registrations.every((r) => [0, 201].includes(r.status)),
        JSON.stringify(registrations.filter((r) => ![0, 201].includes(r.status)).slice(0, 3)),
      ).toBe(true);

      const t0 = Date.now();
      const second = await spawnGateway(env);
      const restartMs = Date.now() - t0;
      cleanups.push(killOnCleanup(second));
      console.info(`restart after SIGKILL on ${driver}: ${restartMs} ms`);

      for (const r of acked) expect(await canSignIn(second.client, r.email), r.email).toBe(200);
      for (const c of changes) {
        // The acknowledged password works, unless a later, unanswered change went through.
        const ok =
          (await canSignIn(second.client, c.email, c.acked)) === 200 ||
          (c.pending !== null && (await canSignIn(second.client, c.email, c.pending)) === 200);
        expect(ok, `${c.email} after ${c.changes} acknowledged changes`).toBe(true);
      }
      expect((await second.stop()).code).toBe(0);

      const db = await store.open();
      try {
        expect(await halfWritten(db.db)).toEqual([]);
        const stored = await emailsIn(db.db);
        for (const r of acked) expect(stored.has(r.email)).toBe(true);
      } finally {
        if (!store.keepOpen) await db.close();
      }
    },
  );

  // One run is enough for the drain; it does not depend on the database.
  if (driver !== testDrivers()[0]) return;

  it(
    'finishes the requests in flight on SIGTERM, refuses new connections, and exits 0',
    { timeout: 180_000 },
    async () => {
      const store = await storage(driver);
      cleanups.push(() => store.cleanup());
      // Slow hashing on one thread keeps several registrations in flight for a while.
      const gw: GatewayProcess = await spawnGateway({
        ...store.env,
        BCRYPT_COST: '10',
        HASH_WORKERS: '1',
        SHUTDOWN_TIMEOUT_SECONDS: '30',
      });
      cleanups.push(killOnCleanup(gw));
      const emails = Array.from({ length: 8 }, (_, i) => `drain.${i}.${Date.now()}@example.com`);
      const pending = new Set(emails);
      const inFlight = emails.map((email) =>
        gw.client.form('/users/register', registration(email)).then((r) => (pending.delete(email), r)),
      );
      // Hashing one at a time, the first answer comes after every request of the burst was read
      // (on a busy machine a fixed pause was not enough for that).
      while (pending.size === emails.length) await sleep(20);
      expect(pending.size).toBeGreaterThan(2);
      gw.child.kill('SIGTERM');

      // New connections are refused while the accepted requests still run.
      const refusedWhileDraining = await waitUntilRefused(gw.port, 3000);
      expect(refusedWhileDraining).toBe(true);
      expect(pending.size, 'requests still in flight when new connections were already refused').toBeGreaterThan(0);

      const answers = await Promise.all(inFlight);
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
      for (const a of answers) expect(a.json.user.email).toMatch(/^drain\./);
      expect(await gw.exited).toEqual({ code: 0, signal: null });
      await gw.client.close();
      expect(gw.logs.some((l) => l.includes('"msg":"stopped"'))).toBe(true);

      const db = await store.open();
      try {
        const stored = await emailsIn(db.db);
        for (const e of emails) expect(stored.has(e)).toBe(true);
      } finally {
        if (!store.keepOpen) await db.close();
      }
    },
  );
});

/** Tries new connections until one is refused (true) or the time is up (false). */
async function waitUntilRefused(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(false)));
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return true;
    await sleep(20);
  }
  return false;
}
