import { accountEvents, users } from '@accounts/db';
import { testDrivers } from '@accounts/db/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  registration,
  startGateway,
  STRONG,
  STRONG2,
  uniqueEmail,
  type Gateway,
  type Response,
} from './support/gateway.js';
import { deviceCookieOf } from './support/two-step.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const setCookies = (res: Response) => [res.headers['set-cookie'] ?? []].flat();

describe.each(testDrivers())('the security form routes on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => gw?.close());

  const device = (ua: string, ip: string) => ({ 'user-agent': ua, 'x-forwarded-for': ip });
  /** An account signed in on two devices. */
  async function twoDevices() {
    const email = uniqueEmail('sec');
    const first = await gw.form('/users/register', registration(email), { headers: device(FIREFOX, '203.0.113.7') });
    expect(first.status).toBe(201);
    const second = await gw.form(
      '/users/login',
      { email, password: STRONG },
      { headers: device(SAFARI, '2001:db8:85a3:9::1') },
    );
    expect(second.status).toBe(200);
    return { email, a: { cookie: first.cookie! }, b: { cookie: second.cookie! } };
  }
  const get = (url: string, headers: Record<string, string> = {}) => gw.send('GET', url, { headers });

  it('GET /users/sessions lists both devices, the caller marked current, without tokens', async () => {
    const { a, b } = await twoDevices();
    const res = await get('/users/sessions', a);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json.sessions).toEqual([
      {
        id: expect.any(String),
        current: true,
        device: 'Firefox 128 on Windows 10',
        address: '203.0.113.x',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
      {
        id: expect.any(String),
        current: false,
        device: 'Mobile Safari 17 on iOS 17.5',
        address: '2001:db8:85a3::/48',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);
    expect(res.text).not.toContain(a.cookie.split('=')[1]);
    expect(res.text).not.toContain(b.cookie.split('=')[1]);
    expect((await get('/users/sessions')).json).toMatchObject({ status: 401, code: 'unauthenticated' });
    // The same procedure over tRPC.
    const trpc = await get('/trpc/security.sessions', b);
    expect(trpc.json.result.data.sessions.map((s: { current: boolean }) => s.current)).toEqual([true, false]);
  });

  it("POST /users/revoke_session: 404 for another account's, malformed and unknown ids; ends the other device; ending its own signs out", async () => {
    const { a, b } = await twoDevices();
    const stranger = await twoDevices();
    const strangerId = (await get('/users/sessions', stranger.a)).json.sessions[0].id;
    for (const id of [strangerId, 'nope', '6f1c2a9e-0000-4000-8000-000000000000']) {
      const res = await gw.form('/users/revoke_session', { session_id: id }, { headers: a });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect((await gw.form('/users/revoke_session', {}, { headers: a })).json).toMatchObject({
      status: 422,
      errors: [{ field: 'session_id', code: 'required' }],
    });
    expect((await get('/users/me', stranger.a)).status).toBe(200);

    const otherId = (await get('/users/sessions', a)).json.sessions[1].id;
    // Another session ends only with the current password: a session alone is not enough.
    const asked = await gw.form('/users/revoke_session', { session_id: otherId }, { headers: a });
    expect(asked.json).toMatchObject({ status: 422, errors: [{ field: 'current_password', code: 'required' }] });
    const wrong = await gw.form(
      '/users/revoke_session',
      { session_id: otherId, current_password: 'not the password at all' },
      { headers: a },
    );
    expect(wrong.json).toMatchObject({
      status: 422,
      errors: [{ field: 'current_password', code: 'password_incorrect' }],
    });
    expect((await get('/users/me', b)).status).toBe(200);
    const ended = await gw.form(
      '/users/revoke_session',
      { session_id: otherId, current_password: STRONG },
      { headers: a },
    );
    expect(ended.status).toBe(200);
    expect(ended.json).toEqual({ ok: true, signedOut: false });
    // The revoked session, used again: 401, over the form routes and /trpc alike.
    expect((await get('/users/me', b)).json).toMatchObject({ status: 401, code: 'unauthenticated' });
    const trpc = await get('/trpc/security.sessions', b);
    expect(trpc.status).toBe(401);
    expect(trpc.json.error.data).toMatchObject({ code: 'UNAUTHORIZED', problem: { code: 'unauthenticated' } });
    expect((await get('/users/sessions', a)).json.sessions).toHaveLength(1);

    const ownId = (await get('/users/sessions', a)).json.sessions[0].id;
    const out = await gw.form('/users/revoke_session', { session_id: ownId }, { headers: a });
    expect(out.json).toEqual({ ok: true, signedOut: true });
    expect(setCookies(out).some((c) => /^session=;/.test(c))).toBe(true);
    expect((await get('/users/me', a)).status).toBe(401);
    expect((await gw.form('/users/revoke_session', { session_id: ownId }, { headers: a })).status).toBe(401);
  });

  it('POST /users/revoke_other_sessions asks for the current password, then ends every other session of the account only', async () => {
    const { a, b, email } = await twoDevices();
    const third = await gw.form('/users/login', { email, password: STRONG });
    const stranger = await twoDevices();
    expect((await gw.form('/users/revoke_other_sessions', {}, { headers: a })).json).toMatchObject({
      status: 422,
      errors: [{ field: 'current_password', code: 'required' }],
    });
    const wrong = await gw.form(
      '/users/revoke_other_sessions',
      { current_password: 'not the password at all' },
      { headers: { ...a, 'accept-language': 'fr' } },
    );
    expect(wrong.json).toMatchObject({
      status: 422,
      errors: [{ field: 'current_password', code: 'password_incorrect', message: 'Le mot de passe est incorrect.' }],
    });
    for (const s of [b, { cookie: third.cookie! }]) expect((await get('/users/me', s)).status).toBe(200);
    const res = await gw.form('/users/revoke_other_sessions', { current_password: STRONG }, { headers: a });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, revoked: 2 });
    for (const s of [b, { cookie: third.cookie! }]) expect((await get('/users/me', s)).status).toBe(401);
    expect((await get('/users/me', a)).status).toBe(200);
    expect((await get('/users/me', stranger.b)).status).toBe(200);
    expect((await gw.form('/users/revoke_other_sessions', { current_password: STRONG }, { headers: b })).status).toBe(
      401,
    );
  });

  it('says devices in the language asked for, and which sign-ins came from a device new to the account', async () => {
    const { a } = await twoDevices();
    const sessions = await get('/users/sessions', { ...a, 'accept-language': 'de-DE,de;q=0.9' });
    expect(sessions.json.sessions.map((s: { device: string }) => s.device)).toEqual([
      'Firefox 128 unter Windows 10',
      'Mobile Safari 17 unter iOS 17.5',
    ]);
    const fr = await get('/users/activity', { ...a, 'accept-language': 'fr' });
    expect(
      fr.json.events.map((e: { type: string; device: string; newDevice?: boolean }) => [e.type, e.device, e.newDevice]),
    ).toEqual([
      // The Safari's sign-in: a device the account had never seen.
      ['signed_in', 'Mobile Safari 17 sous iOS 17.5', true],
      ['registered', 'Firefox 128 sous Windows 10', undefined],
    ]);

    // The browser that registered signs in again, its known-device cookie sent along: not new.
    const email = uniqueEmail('sec');
    const reg = await gw.form('/users/register', registration(email), { headers: device(FIREFOX, '203.0.113.8') });
    const again = await gw.form(
      '/users/login',
      { email, password: STRONG },
      { headers: { ...device(FIREFOX, '203.0.113.8'), cookie: deviceCookieOf(reg)! } },
    );
    expect(again.status).toBe(200);
    const mine = await get('/users/activity', { cookie: again.cookie! });
    expect(mine.json.events[0]).toMatchObject({ type: 'signed_in', device: 'Firefox 128 on Windows 10' });
    expect(mine.json.events[0]).not.toHaveProperty('newDevice');
  });

  it("GET /users/activity pages through the account's own events, newest first", async () => {
    const { a, email } = await twoDevices();
    await gw.form(
      '/users/login',
      { email, password: 'not the password at all' },
      { headers: device(FIREFOX, '198.51.100.44') },
    );
    const first = await get('/users/activity', a);
    expect(first.status).toBe(200);
    expect(first.json.events.map((e: { type: string }) => e.type)).toEqual([
      'sign_in_failed',
      'signed_in',
      'registered',
    ]);
    expect(first.json.events[0]).toMatchObject({
      failed: true,
      device: 'Firefox 128 on Windows 10',
      address: '198.51.100.x',
      at: expect.any(String),
    });
    expect(first.json.nextCursor).toBeNull();

    const [user] = await gw.db.db.select().from(users).where(eq(users.email, email));
    await gw.db.db
      .insert(accountEvents)
      .values(Array.from({ length: 55 }, () => ({ realmId: user!.realmId, userId: user!.id, type: 'signed_out' })));
    const page1 = await get('/users/activity', a);
    expect(page1.json.events).toHaveLength(50);
    const page2 = await get(`/users/activity?cursor=${page1.json.nextCursor}`, a);
    expect(page2.status).toBe(200);
    expect(page2.json.events.map((e: { type: string }) => e.type).slice(-3)).toEqual([
      'sign_in_failed',
      'signed_in',
      'registered',
    ]);
    expect(page2.json.events).toHaveLength(8);
    expect(page2.json.nextCursor).toBeNull();

    // Ids are random per event; a cursor is one of the caller's own events, unknown to anyone else.
    for (const e of [...page1.json.events, ...page2.json.events])
      expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const stranger = await twoDevices();
    const theirs = await get(`/users/activity?cursor=${page1.json.nextCursor}`, stranger.a);
    expect(theirs.json).toMatchObject({ status: 422, errors: [{ field: 'cursor', code: 'cursor_invalid' }] });

    expect((await get('/users/activity?cursor=%%%', a)).json).toMatchObject({
      status: 422,
      errors: [{ field: 'cursor', code: 'cursor_invalid' }],
    });
    expect((await get('/users/activity?cursor=a&cursor=b', a)).json).toMatchObject({
      status: 400,
      code: 'duplicate_field',
    });
    expect((await get('/users/activity')).status).toBe(401);
  });

  it('POST /users/change_name changes the name under the registration rules', async () => {
    const { a } = await twoDevices();
    const res = await gw.form('/users/change_name', { name: ' Grace  Hopper ' }, { headers: a });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ name: 'Grace Hopper' });
    expect((await get('/users/me', a)).json.user.name).toBe('Grace Hopper');
    const bad = await gw.form(
      '/users/change_name',
      { name: 'x'.repeat(151) },
      { headers: { ...a, 'accept-language': 'de' } },
    );
    expect(bad.json).toMatchObject({
      status: 422,
      errors: [{ field: 'name', code: 'name_too_long', message: 'Verwenden Sie höchstens 150 Zeichen.' }],
    });
    expect((await gw.form('/users/change_name', { name: 'X' })).status).toBe(401);
  });

  it('POST /users/delete_account checks the password, deletes, signs out, and the email registers again', async () => {
    const { a, b, email } = await twoDevices();
    const wrong = await gw.form(
      '/users/delete_account',
      { current_password: 'not the password at all' },
      { headers: a },
    );
    expect(wrong.status).toBe(422);
    expect(wrong.json).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'current_password', code: 'password_incorrect' }],
    });
    expect((await get('/users/me', a)).status).toBe(200);

    const done = await gw.form('/users/delete_account', { current_password: STRONG }, { headers: a });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ ok: true });
    expect(setCookies(done).some((c) => /^session=;/.test(c))).toBe(true);
    for (const s of [a, b]) expect((await get('/users/me', s)).status).toBe(401);
    expect((await gw.form('/users/login', { email, password: STRONG })).status).toBe(422);
    const again = await gw.form('/users/register', registration(email, STRONG2));
    expect(again.status).toBe(201);
    expect(
      (await get('/users/activity', { cookie: again.cookie! })).json.events.map((e: { type: string }) => e.type),
    ).toEqual(['registered']);
  });
});

describe.each(testDrivers())('the limit on signed-in writes on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_ACCOUNT_WRITES: '3' });
  });
  afterAll(() => gw?.close());

  const from = (ip: string, cookie: string) => ({ headers: { cookie, 'x-forwarded-for': ip } });
  const signedUp = async () => {
    const res = await gw.form('/users/register', registration(uniqueEmail('writes')), {
      headers: { 'x-forwarded-for': '192.0.2.1' },
    });
    expect(res.status).toBe(201);
    return res.cookie!;
  };
  const namesChanged = async (cookie: string) =>
    (await gw.send('GET', '/users/activity', { headers: { cookie } })).json.events.filter(
      (e: { type: string }) => e.type === 'name_changed',
    ).length;
  const expectLimited = (res: Response) => {
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json).toMatchObject({ status: 429, code: 'rate_limited' });
  };

  it('counts per account, whatever the address: over it is 429 with Retry-After before any write, over /trpc too', async () => {
    const cookie = await signedUp();
    for (let i = 0; i < 3; i++)
      expect(
        (await gw.form('/users/change_name', { name: `Name ${i}` }, from(`198.51.100.${i + 1}`, cookie))).status,
      ).toBe(200);
    expectLimited(await gw.form('/users/change_name', { name: 'Flood' }, from('198.51.100.9', cookie)));
    expectLimited(
      await gw.form('/users/revoke_other_sessions', { current_password: STRONG }, from('198.51.100.10', cookie)),
    );
    const trpc = await gw.send('POST', '/trpc/security.changeName', {
      headers: { cookie, 'x-forwarded-for': '198.51.100.11', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Flood' }),
    });
    expect(trpc.status).toBe(429);
    expect(trpc.json.error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', problem: { code: 'rate_limited' } });
    const me = await gw.send('GET', '/users/me', { headers: { cookie } });
    expect(me.json.user.name).toBe('Name 2');
    expect(await namesChanged(cookie)).toBe(3);
    // Another account is not held by it.
    expect(
      (await gw.form('/users/change_name', { name: 'Other' }, from('198.51.100.12', await signedUp()))).status,
    ).toBe(200);
  });

  it('counts per address, whatever the account', async () => {
    const cookies = [await signedUp(), await signedUp(), await signedUp(), await signedUp()];
    for (const cookie of cookies.slice(0, 3))
      expect((await gw.form('/users/change_name', { name: 'Shared' }, from('203.0.113.80', cookie))).status).toBe(200);
    expectLimited(await gw.form('/users/change_name', { name: 'Flood' }, from('203.0.113.80', cookies[3]!)));
    expect(await namesChanged(cookies[3]!)).toBe(0);
    expect((await gw.form('/users/change_name', { name: 'Elsewhere' }, from('203.0.113.81', cookies[3]!))).status).toBe(
      200,
    );
  });
});
