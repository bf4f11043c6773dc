import { accountEvents } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userByEmail } from '../support/accounts.js';
import {
  registration,
  startGateway,
  STRONG,
  STRONG2,
  uniqueEmail,
  type Gateway,
  type Response,
} from '../support/gateway.js';

// Password guessing against one account from many client addresses. The gateway trusts the
// proxy at 127.0.0.1, so the X-Forwarded-For a test sends stands for the client's address.
// Failures are counted per account and client: an attacker locks out only itself, and the
// owner's known device (the cookie a sign-in or registration leaves) is never locked out.

/** The known-device cookie a response set, as "name=value". */
const deviceCookie = (res: Response) =>
  [res.headers['set-cookie'] ?? []]
    .flat()
    .map((c) => c.split(';')[0]!)
    .find((c) => /^(__Host-)?known_device=./.test(c));

describe.each(testDrivers())('password guessing on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => gw?.close());

  const from = (address: string, extra: Record<string, string> = {}) => ({
    headers: { 'x-forwarded-for': address, ...extra },
  });
  const signIn = (email: string, password: string, address: string, extra: Record<string, string> = {}) =>
    gw.form('/users/login', { email, password }, from(address, extra));
  const failures = async (email: string) => {
    const user = await userByEmail(gw.db.db, email);
    const rows = await gw.db.db
      .select()
      .from(accountEvents)
      .where(
        and(
          eq(accountEvents.userId, user!.id),
          inArray(accountEvents.type, ['sign_in_failed', 'password_change_failed']),
        ),
      );
    return rows.length;
  };
  /** Registers an account from one address; returns its email and the owner's known-device cookie. */
  const owner = async (tag: string) => {
    const email = uniqueEmail(tag);
    const reg = await gw.form('/users/register', registration(email), from('198.51.100.1'));
    expect(reg.status).toBe(201);
    const device = deviceCookie(reg);
    expect(device).toBeDefined();
    return { email, device: device!, session: reg.cookie! };
  };

  it.concurrent(
    'lets the owner in from the known device and from a new address after ten attackers guessed 5 times each',
    async () => {
      const { email, device } = await owner('ten');
      for (let a = 0; a < 10; a++) {
        for (let i = 0; i < 5; i++)
          expect((await signIn(email, `guess ${i} from attacker ${a}`, `203.0.113.${a + 1}`)).status).toBe(422);
      }
      expect(await failures(email)).toBe(50);
      const known = await signIn(email, STRONG, '198.51.100.1', { cookie: device });
      expect(known.status).toBe(200);
      const fresh = await signIn(email, STRONG, '192.0.2.77');
      expect(fresh.status).toBe(200);
    },
  );

  it.concurrent(
    'refuses one attacker address after 5 failures, also with the right password, with Retry-After',
    async () => {
      const { email } = await owner('one');
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await signIn(email, `guess number ${i}`, '203.0.113.200')).status);
      expect(statuses).toEqual([422, 422, 422, 422, 422, 429, 429, 429]);
      const locked = await signIn(email, STRONG, '203.0.113.200');
      expect(locked.status).toBe(429);
      expect(locked.json).toMatchObject({ code: 'too_many_attempts', status: 429 });
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(await failures(email)).toBe(5);
      // Another address of the same IPv6 /64 is the same client; the next /64 is not.
      for (let i = 0; i < 5; i++)
        expect((await signIn(email, `v6 guess ${i}`, `2001:db8:5:6::${i + 1}`)).status).toBe(422);
      expect((await signIn(email, STRONG, '2001:db8:5:6:ffff::1')).status).toBe(429);
      expect((await signIn(email, STRONG, '2001:db8:5:7::1')).status).toBe(200);
    },
  );

  it.concurrent(
    'after 100 failures from many addresses refuses new clients, but not the known device nor the signed-in session',
    async () => {
      const { email, device, session } = await owner('hundred');
      for (let i = 0; i < 100; i++)
        expect((await signIn(email, `guess number ${i}`, `10.1.${Math.floor(i / 4)}.${i % 4}`)).status).toBe(422);
      const fresh = await signIn(email, STRONG, '192.0.2.99');
      expect(fresh.status).toBe(429);
      expect(fresh.json.code).toBe('too_many_attempts');
      expect(Number(fresh.headers['retry-after'])).toBeGreaterThan(23 * 3600);
      expect((await signIn(email, STRONG, '192.0.2.99', { cookie: device })).status).toBe(200);
      const change = await gw.form(
        '/users/change_password',
        { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
        from('198.51.100.1', { cookie: session }),
      );
      expect(change.status).toBe(200);
    },
  );

  it.concurrent(
    'checks no more than 5 guesses of a burst from one address, and all simultaneous correct sign-ins succeed',
    async () => {
      const { email } = await owner('burst');
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) => signIn(email, `concurrent guess ${i}`, '203.0.113.250')),
      );
      const statuses = burst.map((r) => r.status);
      expect(
        statuses.every((s) => s === 422 || s === 429),
        String(statuses),
      ).toBe(true);
      expect(statuses.filter((s) => s === 422)).toHaveLength(5);
      expect(await failures(email)).toBe(5);
      const together = await Promise.all(Array.from({ length: 8 }, () => signIn(email, STRONG, '198.51.100.2')));
      expect(together.map((r) => r.status)).toEqual(Array(8).fill(200));
    },
  );

  it.concurrent(
    'gives a token client its known-device credential in the body, and honours it in X-Known-Device',
    async () => {
      const email = uniqueEmail('program');
      const reg = await gw.form(
        '/users/register',
        registration(email),
        from('198.51.100.3', { 'x-session-delivery': 'token' }),
      );
      expect(reg.status).toBe(201);
      expect(reg.headers['set-cookie']).toBeUndefined();
      const credential = reg.json.knownDevice as string;
      expect(credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (let i = 0; i < 5; i++) expect((await signIn(email, `guess number ${i}`, '198.51.100.3')).status).toBe(422);
      expect((await signIn(email, STRONG, '198.51.100.3')).status).toBe(429);
      const known = await signIn(email, STRONG, '198.51.100.3', {
        'x-session-delivery': 'token',
        'x-known-device': credential,
      });
      expect(known.status).toBe(200);
      expect(known.json.knownDevice).toBe(credential);
    },
  );
});

describe('the known-device cookie', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(testDrivers()[0]!, { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => gw?.close());

  it('is HttpOnly, SameSite=Strict, host-only, long-lived, and __Host- prefixed over https', async () => {
    const plain = await gw.form('/users/register', registration());
    const cookie = [plain.headers['set-cookie']].flat().find((c) => c?.startsWith('known_device='));
    expect(cookie).toMatch(/^known_device=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    const days = (Date.parse(/Expires=([^;]+)/.exec(cookie!)![1]!) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(365);
    const https = await gw.form('/users/register', registration(), {
      headers: { 'x-forwarded-proto': 'https', origin: `https://localhost:${gw.port}` },
    });
    expect(
      [https.headers['set-cookie']]
        .flat()
        .some((c) => /^__Host-known_device=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/.test(c!)),
    ).toBe(true);
  });
});
