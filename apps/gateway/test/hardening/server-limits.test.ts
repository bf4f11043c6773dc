import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountEvents, auditSettings, knownDevices, sessions } from '@accounts/db';
import { testDrivers } from '@accounts/db/testing';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userByEmail } from '../support/accounts.js';
import { expectProblem } from '../support/checks.js';
import { registration, startGateway, STRONG, uniqueEmail, type Gateway } from '../support/gateway.js';
import { spawnGateway } from '../support/process.js';
import { rawRequest } from '../support/raw-http.js';

/** Opens a connection; resolves once connected. */
const open = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

/**
 * Writes `head`, then one more byte every `everyMs` until the server closes the connection;
 * resolves with how many of those bytes it took and what the server answered. A server that
 * never cuts the client off lets this run into the test's timeout.
 */
function dripUntilClosed(port: number, head: string, everyMs: number): Promise<{ dripped: number; answer: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let dripped = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) socket.write('a', () => dripped++);
      }, everyMs);
    });
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ dripped, answer });
    });
  });
}

describe('slow clients and held connections', () => {
  let gw: Gateway;
  beforeAll(async () => {
    // Short timeouts keep the test short; the defaults (30 s, 10 s) are the same mechanism.
    gw = await startGateway(testDrivers()[0]!, { REQUEST_TIMEOUT_SECONDS: '2', HEADERS_TIMEOUT_SECONDS: '1' });
  });
  afterAll(() => gw?.close());

  it('cuts off a client whose body trickles in (Content-Length: 1000, a byte at a time)', async () => {
    const head = `POST /users/login HTTP/1.1\r\nHost: localhost:${gw.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`;
    const { dripped } = await dripUntilClosed(gw.port, head, 200);
    expect(dripped).toBeLessThan(1000);
    expect((await gw.send('GET', '/healthz')).status).toBe(200);
  });

  it('cuts off a client whose headers never end', async () => {
    const { dripped, answer } = await dripUntilClosed(
      gw.port,
      `GET /users/me HTTP/1.1\r\nHost: localhost:${gw.port}\r\nX-Slow: `,
      200,
    );
    expect(dripped).toBeLessThan(1000);
    expect(answer).not.toMatch(/^HTTP\/1\.1 200/);
  });

  it('answers two Host headers with 400, whatever they name', async () => {
    for (const second of ['localhost', 'acme.localhost', 'evil.example']) {
      const res = await rawRequest(
        gw.port,
        `GET /users/me HTTP/1.1\r\nHost: localhost:${gw.port}\r\nHost: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, second).toBe(400);
      expectProblem(JSON.parse(res.body), 400, `second host ${second}`);
    }
    expect((await gw.send('GET', '/users/me')).status).toBe(401);
  });
});

describe('the connection cap', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(testDrivers()[0]!, { MAX_CONNECTIONS: '3' });
  });
  afterAll(() => gw?.close());

  it('closes connections beyond MAX_CONNECTIONS at once, and serves again when one is free', async () => {
    const held = await Promise.all([open(gw.port), open(gw.port), open(gw.port)]);
    const extra = await open(gw.port);
    const closed = await new Promise<string>((resolve) => {
      let got = '';
      extra.on('data', (d) => (got += d.toString()));
      extra.on('error', () => {});
      extra.on('close', () => resolve(got));
      extra.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    });
    expect(closed).toBe('');
    held[0].destroy();
    await sleep(100);
    const ok = await rawRequest(gw.port, `GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(ok.status).toBe(200);
    for (const s of held) s.destroy();
  });
});

describe('per-address limits while Redis is unreachable', () => {
  let gw: Gateway;
  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails.
    gw = await startGateway(testDrivers()[0]!, {
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_SIGN_IN: '3',
      LOG_LEVEL: 'warn',
    });
  });
  afterAll(() => gw?.close());

  it('falls back to counting in the process instead of turning the limits off', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await gw.form('/users/login', { email: uniqueEmail(), password: 'not it, not it at all' })).status,
      );
    expect(statuses).toEqual([422, 422, 422, 429, 429]);
    expect(gw.logs.join('\n')).toMatch(/redis unavailable; per-address limits fall back to this process/);
  });
});

describe.each(testDrivers())('the retention purge on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, {
      PURGE_INTERVAL_SECONDS: '1',
      EVENT_RETENTION_DAYS: '2',
      KNOWN_DEVICE_DAYS: '30',
      SESSION_IDLE_HOURS: '24',
    });
  });
  afterAll(() => gw?.close());

  it('deletes expired and idle sessions, old events, unused known devices and all but 20 per account in the background, and nothing else', async () => {
    const email = uniqueEmail('purge');
    const reg = await gw.form('/users/register', registration(email));
    const user = (await userByEmail(gw.db.db, email))!;
    const ago = (days: number) => sql`now() - ${days}::integer * interval '1 day'`;
    const old = {
      sessions: [
        ...(await gw.db.db
          .insert(sessions)
          .values({ userId: user.id, tokenHash: `expired-${email}`, expiresAt: sql`now() - interval '1 minute'` })
          .returning()),
        ...(await gw.db.db
          .insert(sessions)
          .values({
            userId: user.id,
            tokenHash: `idle-${email}`,
            expiresAt: sql`now() + interval '10 days'`,
            lastSeenAt: ago(2),
          })
          .returning()),
      ].map((r) => r.id),
      events: (
        await gw.db.db
          .insert(accountEvents)
          .values(
            Array.from({ length: 1200 }, () => ({
              realmId: user.realmId,
              userId: user.id,
              type: 'sign_in_failed',
              createdAt: ago(3),
            })),
          )
          .returning()
      ).map((r) => r.id),
      devices: (
        await gw.db.db
          .insert(knownDevices)
          .values({ userId: user.id, tokenHash: `old-${email}`, lastUsedAt: ago(31) })
          .returning()
      ).map((r) => r.id),
    };
    const [recent] = await gw.db.db
      .insert(accountEvents)
      .values({ realmId: user.realmId, userId: user.id, type: 'sign_in_failed', createdAt: ago(1) })
      .returning();
    // A program that signs in again and again without sending its credential back: 25 devices.
    const busy = uniqueEmail('program');
    await gw.form('/users/register', registration(busy));
    const busyUser = (await userByEmail(gw.db.db, busy))!;
    await gw.db.db
      .insert(knownDevices)
      .values(Array.from({ length: 24 }, (_, i) => ({ userId: busyUser.id, tokenHash: `busy-${i}-${busy}` })));
    const left = async () => ({
      sessions: (await gw.db.db.select().from(sessions).where(inArray(sessions.id, old.sessions))).length,
      events: (await gw.db.db.select().from(accountEvents).where(inArray(accountEvents.id, old.events))).length,
      devices: (await gw.db.db.select().from(knownDevices).where(inArray(knownDevices.id, old.devices))).length,
    });
    let now = await left();
    const busyDevices = async () =>
      (await gw.db.db.select().from(knownDevices).where(eq(knownDevices.userId, busyUser.id))).length;
    for (let i = 0; i < 100 && (now.sessions + now.events + now.devices > 0 || (await busyDevices()) > 20); i++) {
      await sleep(200);
      now = await left();
    }
    expect(now).toEqual({ sessions: 0, events: 0, devices: 0 });
    expect(await busyDevices()).toBe(20);
    // The retention the database's purge function holds to is the gateway's setting, written at
    // start-up; an event younger than it stays.
    expect(await gw.db.db.select().from(auditSettings)).toEqual([{ id: true, eventRetentionDays: 2 }]);
    expect(await gw.db.db.select().from(accountEvents).where(eq(accountEvents.id, recent!.id))).toHaveLength(1);
    // What is still live stays: the registration's session, event and known device.
    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).status).toBe(200);
    expect(
      (await gw.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id))).map((e) => e.type),
    ).toContain('registered');
    expect(await gw.db.db.select().from(knownDevices).where(eq(knownDevices.userId, user.id))).toHaveLength(1);
    expect((await gw.form('/users/login', { email, password: STRONG })).status).toBe(200);
    expect(gw.logs.join('\n')).toMatch(/retention purge/);
  });
});

describe('source maps', () => {
  it('are not served, while the app and its other files are', { timeout: 60_000 }, async () => {
    const dist = mkdtempSync(join(tmpdir(), 'accounts-web-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(join(dist, 'app.js'), 'console.log(1)');
    writeFileSync(join(dist, 'app.js.map'), '{"version":3,"sources":["secret.ts"]}');
    const gw = await spawnGateway({ DATA_DIR: 'memory://', SERVE_WEB: 'true', WEB_DIST_DIR: dist });
    try {
      expect((await gw.client.send('GET', '/app.js')).status).toBe(200);
      const map = await gw.client.send('GET', '/app.js.map');
      // Not found, as a file that is not there: no route, so no 405 naming the methods it would take.
      expect(map.status).toBe(404);
      expect(map.headers.allow).toBeUndefined();
      expect(map.text).not.toContain('secret.ts');
    } finally {
      await gw.stop();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
