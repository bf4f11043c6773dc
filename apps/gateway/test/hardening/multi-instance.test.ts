import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempDatabase, createTestDatabase, type TestDatabase } from '@accounts/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, STRONG, STRONG2, uniqueEmail } from '../support/gateway.js';
import { spawnGateway, type GatewayProcess } from '../support/process.js';

// Several gateway processes over one database: what one instance does, the others see.

describe('two processes on one PGlite data directory', () => {
  it('refuses to start the second while the first runs: PGlite is single-process', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accounts-pglite-'));
    const first = await spawnGateway({ DATA_DIR: dir });
    try {
      const second = await spawnGateway({ DATA_DIR: dir, DATA_DIR_LOCK_WAIT_MS: '0' }).catch((e: Error) => e);
      expect(second).toBeInstanceOf(Error);
      expect((second as Error).message).toMatch(/exited \(1\) before listening[\s\S]*in use by another process/);
      expect((await first.client.form('/users/register', registration())).status).toBe(201);
    } finally {
      await first.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Only with a PostgreSQL to share (CI sets TEST_DATABASE_URL).
if (process.env.TEST_DATABASE_URL) {
  describe('instances starting together on a new PostgreSQL database', () => {
    it('all come up: one applies the migrations, the others wait for it', { timeout: 60_000 }, async () => {
      const temp = await createTempDatabase();
      const started = await Promise.allSettled(
        Array.from({ length: 3 }, () => spawnGateway({ DATABASE_URL: temp.url })),
      );
      try {
        expect(started.map((s) => (s.status === 'rejected' ? String(s.reason).slice(0, 300) : 'up'))).toEqual([
          'up',
          'up',
          'up',
        ]);
        const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
        expect((await up[2]!.client.form('/users/register', registration())).status).toBe(201);
      } finally {
        await Promise.all(started.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop()] : [])));
        await temp.drop();
      }
    });
  });

  describe('two processes sharing one PostgreSQL', () => {
    let db: TestDatabase;
    let a: GatewayProcess;
    let b: GatewayProcess;
    beforeAll(async () => {
      db = await createTestDatabase('postgres');
      const env = { DATABASE_URL: db.url!, TRUST_PROXY: '127.0.0.1', ACCOUNT_MAX_FAILURES: '5' };
      [a, b] = await Promise.all([spawnGateway(env), spawnGateway(env)]);
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await db?.close();
    });

    it('accepts on one instance the session made on the other', async () => {
      const reg = await a.client.form('/users/register', registration());
      expect(reg.status).toBe(201);
      const me = await b.client.send('GET', '/users/me', { headers: { cookie: reg.cookie! } });
      expect(me.status).toBe(200);
      expect(me.json.user.id).toBe(reg.json.user.id);
    });

    it('revokes on every instance the sessions that a password change on one ended', async () => {
      const email = uniqueEmail('shared');
      const reg = await a.client.form('/users/register', registration(email));
      const onB = await b.client.form('/users/login', { email, password: STRONG });
      expect((await b.client.send('GET', '/users/me', { headers: { cookie: onB.cookie! } })).status).toBe(200);
      const changed = await a.client.form(
        '/users/change_password',
        { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
        { headers: { cookie: reg.cookie! } },
      );
      expect(changed.json).toEqual({ ok: true, otherSessionsRevoked: 1 });
      // b hears of the change through PostgreSQL's notification, which reaches it a moment after
      // a's commit (milliseconds; longer on a loaded machine): within a second, never later.
      await expect
        .poll(async () => (await b.client.send('GET', '/users/me', { headers: { cookie: onB.cookie! } })).status, {
          timeout: 1_000,
          interval: 20,
        })
        .toBe(401);
      expect((await b.client.send('GET', '/users/me', { headers: { cookie: changed.cookie! } })).status).toBe(200);
      expect((await b.client.form('/users/login', { email, password: STRONG })).status).toBe(422);
    });

    it('holds the per-client failure limit across both, one by one and in a burst', async () => {
      const email = uniqueEmail('guessed');
      await a.client.form('/users/register', registration(email));
      // One attacker address, sending to both instances.
      const guess = (gw: GatewayProcess, i: number) =>
        gw.client.form(
          '/users/login',
          { email, password: `guess ${i} here` },
          { headers: { 'x-forwarded-for': '198.51.100.7' } },
        );
      const one = [];
      for (let i = 0; i < 3; i++) one.push((await guess(i % 2 ? b : a, i)).status);
      expect(one).toEqual([422, 422, 422]);
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => guess(i % 2 ? b : a, 10 + i)));
      expect(burst.every((r) => r.status === 422 || r.status === 429)).toBe(true);
      let checked = one.length + burst.filter((r) => r.status === 422).length;
      expect(checked).toBeLessThanOrEqual(5);
      // One by one until refused: exactly five passwords get checked in all, on whichever instance.
      for (let i = 0; i < 5 && checked < 6; i++) {
        const r = await guess(i % 2 ? a : b, 40 + i);
        if (r.status === 429) break;
        checked++;
      }
      expect(checked).toBe(5);
      const attacker = { headers: { 'x-forwarded-for': '198.51.100.7' } };
      for (const gw of [a, b])
        expect((await gw.client.form('/users/login', { email, password: STRONG }, attacker)).json.code).toBe(
          'too_many_attempts',
        );
      // Anyone else still gets in, on either instance.
      for (const gw of [a, b])
        expect(
          (
            await gw.client.form(
              '/users/login',
              { email, password: STRONG },
              { headers: { 'x-forwarded-for': '198.51.100.8' } },
            )
          ).status,
        ).toBe(200);
    });

    // Per-address rate limits are shared only through Redis (TEST_REDIS_URL in CI).
    if (process.env.TEST_REDIS_URL) {
      describe('with Redis', () => {
        let ra: GatewayProcess;
        let rb: GatewayProcess;
        let redis: Redis;
        // A client /64 of our own (documentation range), so no other test shares the keys.
        const group = () => (0x1000 + (randomBytes(2).readUInt16BE() % 0xe000)).toString(16);
        const net = `2001:db8:${group()}:${group()}`;
        const ip = `${net}::1`;
        const key = `${net}::/64`;
        beforeAll(async () => {
          redis = new Redis(process.env.TEST_REDIS_URL!, { maxRetriesPerRequest: 1 });
          const env = {
            DATABASE_URL: db.url!,
            REDIS_URL: process.env.TEST_REDIS_URL!,
            TRUST_PROXY: '127.0.0.1',
            RATE_LIMIT_SIGN_IN: '4',
            RATE_LIMIT_WINDOW_SECONDS: '60',
          };
          [ra, rb] = await Promise.all([spawnGateway(env), spawnGateway(env)]);
        });
        afterAll(async () => {
          await Promise.all([ra?.stop(), rb?.stop()]);
          const keys = await redis.keys(`accounts-rl:*${key}*`);
          if (keys.length) await redis.del(...keys);
          redis.disconnect();
        });

        it('counts one client address across both instances', async () => {
          const login = (gw: GatewayProcess) =>
            gw.client.form(
              '/users/login',
              { email: uniqueEmail('rl'), password: 'not it, not it at all' },
              { headers: { 'x-forwarded-for': ip } },
            );
          const statuses = [];
          for (let i = 0; i < 6; i++) statuses.push((await login(i % 2 ? rb : ra)).status);
          expect(statuses).toEqual([422, 422, 422, 422, 429, 429]);
          const limited = await login(ra);
          expect(limited.json.code).toBe('rate_limited');
          expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
          expect((await redis.keys(`accounts-rl:*${key}*`)).length).toBeGreaterThan(0);
        });
      });
    }
  });
}
