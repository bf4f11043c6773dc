import { testDrivers } from '@accounts/db/testing';
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

const json = { 'content-type': 'application/json' };
const setCookies = (res: Response) => [res.headers['set-cookie'] ?? []].flat();

describe.each(testDrivers())('sessions and cookies on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => gw?.close());

  it('ends the session a client presents when it signs in or registers, even as another user', async () => {
    const a = uniqueEmail('a');
    const regA = await gw.form('/users/register', registration(a));
    const regB = await gw.form('/users/register', registration(), { headers: { cookie: regA.cookie! } });
    expect(regB.status).toBe(201);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: regA.cookie! } })).status).toBe(401);
    const again = await gw.form('/users/login', { email: a, password: STRONG }, { headers: { cookie: regB.cookie! } });
    expect(again.status).toBe(200);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: regB.cookie! } })).status).toBe(401);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: again.cookie! } })).json.user.email).toBe(a);
    // A bearer token presented to a sign-in ends too.
    const program = await gw.form(
      '/users/login',
      { email: a, password: STRONG },
      { headers: { 'x-session-delivery': 'token' } },
    );
    const bearer = { authorization: `Bearer ${program.json.session.token}` };
    expect((await gw.form('/users/login', { email: a, password: STRONG }, { headers: bearer })).status).toBe(200);
    expect((await gw.send('GET', '/users/me', { headers: bearer })).status).toBe(401);
  });

  it('sends Cache-Control: no-store on every /users and /trpc answer, success or error', async () => {
    const reg = await gw.form('/users/register', registration());
    const answers = [
      await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } }),
      await gw.send('GET', '/users/me'),
      await gw.send('GET', '/users/nothing'),
      await gw.form('/users/login', { email: uniqueEmail(), password: 'not the password at all' }),
      await gw.send('GET', '/trpc/account.settings'),
      await gw.send('GET', '/trpc/account.me', { headers: { cookie: reg.cookie! } }),
      await gw.send('POST', '/trpc/account.signIn', { headers: json, body: '{"email":' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 422, 200, 200, 400]);
    for (const r of answers) expect(r.headers['cache-control']).toBe('no-store');
  });

  it('sends HSTS over https only, for a year with includeSubDomains', async () => {
    const https = await gw.send('GET', '/trpc/account.settings', { headers: { 'x-forwarded-proto': 'https' } });
    expect(https.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect((await gw.send('GET', '/trpc/account.settings')).headers['strict-transport-security']).toBeUndefined();
  });

  it('signs out server-side, clears the session cookie and site data, and keeps the known-device cookie', async () => {
    const reg = await gw.form('/users/register', registration());
    const device = setCookies(reg)
      .find((c) => c.startsWith('known_device='))!
      .split(';')[0]!;
    const out = await gw.form('/users/logout', {}, { headers: { cookie: `${reg.cookie}; ${device}` } });
    expect(out.status).toBe(200);
    expect(out.headers['clear-site-data']).toBe('"cache", "storage"');
    expect(out.headers['cache-control']).toBe('no-store');
    const cleared = setCookies(out);
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(
      /^session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
    // The old token is dead even when a client keeps sending it.
    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).status).toBe(401);
  });

  it("keeps the changing browser's known-device cookie through a password change and ends the other browsers'", async () => {
    const email = uniqueEmail('known');
    const deviceOf = (res: Response) =>
      setCookies(res)
        .find((c) => c.startsWith('known_device='))!
        .split(';')[0]!;
    const from = (ip: string, cookie: string) => ({ headers: { 'x-forwarded-for': ip, cookie } });
    const reg = await gw.form('/users/register', registration(email), from('198.51.100.31', ''));
    const mine = deviceOf(reg);
    const theirs = deviceOf(await gw.form('/users/login', { email, password: STRONG }, from('198.51.100.32', '')));
    const changed = await gw.form(
      '/users/change_password',
      { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      from('198.51.100.31', `${reg.cookie}; ${mine}`),
    );
    expect(changed.status).toBe(200);
    // Still known: the credential comes back as it was. No longer known: a new token goes in front of it.
    expect(deviceOf(await gw.form('/users/login', { email, password: STRONG2 }, from('198.51.100.31', mine)))).toBe(
      mine,
    );
    expect(
      deviceOf(await gw.form('/users/login', { email, password: STRONG2 }, from('198.51.100.32', theirs))),
    ).toMatch(new RegExp(`^known_device=[A-Za-z0-9_-]{43}\\.${theirs.split('=')[1]}$`));
  });

  it('hands a bearer client its rotated token in the body when it changes its password over /trpc', async () => {
    const email = uniqueEmail('bearer');
    const reg = await gw.form('/users/register', registration(email), { headers: { 'x-session-delivery': 'token' } });
    const old = reg.json.session.token as string;
    const changed = await gw.send('POST', '/trpc/account.changePassword', {
      headers: { ...json, authorization: `Bearer ${old}` },
      body: JSON.stringify({ current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 }),
    });
    expect(changed.status).toBe(200);
    expect(changed.headers['set-cookie']).toBeUndefined();
    const rotated = changed.json.result.data.session.token as string;
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(old);
    expect((await gw.send('GET', '/users/me', { headers: { authorization: `Bearer ${rotated}` } })).status).toBe(200);
    expect((await gw.send('GET', '/users/me', { headers: { authorization: `Bearer ${old}` } })).status).toBe(401);
  });

  it('keeps the real Origin on same-origin posts (Referrer-Policy) and allows styles from its own origin only', async () => {
    const res = await gw.send('GET', '/healthz');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/(^|;)style-src 'self'(;|$)/);
    expect(csp).not.toMatch(/style-src[^;]*https:/);
  });
});
