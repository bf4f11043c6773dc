import { testDrivers } from '@accounts/testing';
import { users } from '@accounts/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  registration,
  SEED_HEADERS,
  startGateway,
  STRONG,
  STRONG2,
  uniqueEmail,
  type Gateway,
  type Response,
} from './support/gateway.js';

const change = (current: string, next: string, confirm = next) => ({
  current_password: current,
  new_password: next,
  confirm_password: confirm,
});

describe.each(testDrivers())('the seed interface over HTTP on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver);
  });
  afterAll(() => gw.close());

  it('registers with the seed headers: 201, the user as JSON, a host-only HttpOnly session cookie', async () => {
    const email = uniqueEmail('Seed');
    const res = await gw.form('/users/register', registration(email));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual({
      user: {
        id: expect.any(String),
        name: 'Test User',
        email: email.toLowerCase(),
        realm: 'default',
        emailVerified: false,
      },
    });
    expect(res.text).not.toMatch(/hash|\$2b\$|session/i);
    const cookies = [res.headers['set-cookie']].flat();
    expect(cookies.find((c) => c?.startsWith('session='))).toMatch(
      /^session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
    );
    expect(cookies.find((c) => c?.startsWith('known_device='))).toMatch(
      /^known_device=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/,
    );
    expect(String(cookies)).not.toMatch(/Domain/i);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('accepts the content type without a charset, and ignores unknown fields', async () => {
    const res = await gw.form(
      '/users/register',
      { ...registration(), extra: 'ignored', role: 'admin' },
      { headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.user).sort()).toEqual(['email', 'emailVerified', 'id', 'name', 'realm']);
  });

  it('changes the password with the session cookie: 200, rotated cookie, old cookie and other sessions refused', async () => {
    const email = uniqueEmail();
    const reg = await gw.form('/users/register', registration(email));
    const other = await gw.form('/users/login', { email, password: STRONG });
    expect(other.status).toBe(200);

    const res = await gw.form('/users/change_password', change(STRONG, STRONG2), { headers: { cookie: reg.cookie! } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, otherSessionsRevoked: 1 });
    expect(res.cookie).toBeDefined();
    expect(res.cookie).not.toBe(reg.cookie);
    expect(res.headers['cache-control']).toBe('no-store');

    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).status).toBe(401);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: other.cookie! } })).status).toBe(401);
    const me = await gw.send('GET', '/users/me', { headers: { cookie: res.cookie! } });
    expect(me.status).toBe(200);
    expect(me.json.user.email).toBe(email);

    const old = await gw.form('/users/login', { email, password: STRONG });
    expect(old.status).toBe(422);
    expect(old.json.errors).toEqual([{ field: 'password', code: 'credentials_invalid', message: expect.any(String) }]);
    expect((await gw.form('/users/login', { email, password: STRONG2 })).status).toBe(200);
  });

  it('answers a wrong current password with 422 password_incorrect, never 401', async () => {
    const reg = await gw.form('/users/register', registration());
    const res = await gw.form('/users/change_password', change('this is not my password', STRONG2), {
      headers: { cookie: reg.cookie! },
    });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'current_password', code: 'password_incorrect' }],
    });
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const reg = await gw.form('/users/register', registration());
    const out = await gw.send('POST', '/users/logout', { headers: { cookie: reg.cookie!, accept: '*/*' } });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^session=; .*Expires=Thu, 01 Jan 1970/);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).status).toBe(401);
  });

  it('hands a bearer token in the body only to a client that asks, and accepts it', async () => {
    const email = uniqueEmail();
    const res = await gw.form('/users/register', registration(email), { headers: { 'x-session-delivery': 'token' } });
    expect(res.status).toBe(201);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.json.session).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
    });
    const auth = { authorization: `Bearer ${res.json.session.token}` };
    expect((await gw.send('GET', '/users/me', { headers: auth })).json.user.email).toBe(email);
    const changed = await gw.form('/users/change_password', change(STRONG, STRONG2), {
      headers: { ...auth, 'x-session-delivery': 'token' },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.session.token).not.toBe(res.json.session.token);
    expect((await gw.send('GET', '/users/me', { headers: auth })).status).toBe(401);
    // A browser session's token never appears in a body.
    const browser = await gw.form('/users/login', { email, password: STRONG2 });
    expect(browser.json.session).toBeUndefined();
  });

  it('keeps one email per realm by Host, and a realm session stays in its realm', async () => {
    const email = uniqueEmail('realms');
    const a = await gw.form('/users/register', registration(email));
    const b = await gw.form('/users/register', registration(email), { host: 'acme.localhost' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.json.user.realm).toBe('acme');
    expect(
      (await gw.form('/users/register', registration(email.toUpperCase()), { host: 'ACME.localhost' })).status,
    ).toBe(409);
    expect((await gw.send('GET', '/users/me', { host: 'acme.localhost', headers: { cookie: a.cookie! } })).status).toBe(
      401,
    );
    expect(
      (await gw.send('GET', '/users/me', { host: 'acme.localhost', headers: { cookie: b.cookie! } })).json.user.realm,
    ).toBe('acme');
    expect(
      (await gw.send('GET', '/users/me', { host: '127.0.0.1', headers: { cookie: a.cookie! } })).json.user.realm,
    ).toBe('default');
  });

  it('answers an unknown realm with 404 and creates nothing', async () => {
    const count = async () => (await gw.db.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]!.n;
    const before = await count();
    for (const host of ['nope.localhost', 'evil.example.com', 'a.b.localhost']) {
      const res = await gw.form('/users/register', registration(), { host });
      expect(res.status).toBe(404);
      expect(res.json.code).toBe('realm_not_found');
    }
    expect(await count()).toBe(before);
  });

  it('answers every documented error status as problem+json with a stable code', async () => {
    const reg = await gw.form('/users/register', registration());
    const cases: [string, Promise<Response>, number, string][] = [
      [
        'duplicated field',
        gw.form('/users/register', 'name=a&name=b&email=x@example.com&password=p&password2=p'),
        400,
        'duplicate_field',
      ],
      ['stray percent', gw.form('/users/register', 'name=%ZZ&email=a@example.com'), 400, 'invalid_body'],
      ['percent-escape that is not UTF-8', gw.form('/users/login', 'email=%C3%28&password=x'), 400, 'invalid_body'],
      ['no session', gw.form('/users/change_password', change(STRONG, STRONG2)), 401, 'unauthenticated'],
      [
        'cross-origin',
        gw.form('/users/register', registration(), { headers: { origin: 'http://evil.example' } }),
        403,
        'cross_origin',
      ],
      [
        'sibling realm (same-site)',
        gw.form('/users/logout', {}, { headers: { 'sec-fetch-site': 'same-site', cookie: reg.cookie! } }),
        403,
        'cross_origin',
      ],
      ['unknown route', gw.send('GET', '/users/nothing-here'), 404, 'not_found'],
      ['email taken', gw.form('/users/register', registration(reg.json.user.email)), 409, 'email_taken'],
      [
        'body over 16 KiB',
        gw.form('/users/register', { ...registration(), name: 'x'.repeat(17 * 1024) }),
        413,
        'payload_too_large',
      ],
      [
        'JSON body',
        gw.send('POST', '/users/register', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(registration()),
        }),
        415,
        'unsupported_media_type',
      ],
      [
        'text body',
        gw.send('POST', '/users/login', { headers: { 'content-type': 'text/plain' }, body: 'email=a' }),
        415,
        'unsupported_media_type',
      ],
      ['invalid fields', gw.form('/users/register', { name: '', email: 'x' }), 422, 'validation_failed'],
      ['GET on a POST route', gw.send('GET', '/users/register'), 405, 'method_not_allowed'],
    ];
    for (const [what, p, status, code] of cases) {
      const res = await p;
      expect({ what, status: res.status, code: res.json?.code }).toEqual({ what, status, code });
      expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
      expect(res.json, what).toMatchObject({ type: 'about:blank', status, title: expect.any(String) });
      expect(JSON.stringify(res.json), what).not.toMatch(/at .*\.(ts|js):\d+|Error:/);
    }
  });

  it('returns every field error at once', async () => {
    const res = await gw.form('/users/register', {
      name: '',
      email: 'nope',
      password: 'short',
      password2: 'different',
    });
    expect(res.json.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)).toEqual([
      'name:required',
      'email:invalid_email',
      'password:password_too_short',
      'password2:password_mismatch',
    ]);
  });

  it('speaks the Accept-Language of the request, with Content-Language, and never changes the code', async () => {
    const ask = (lang: string) => gw.form('/users/register', { name: '' }, { headers: { 'accept-language': lang } });
    const [en, de, fr, other, weighted] = await Promise.all([
      ask('en'),
      ask('de-CH, de;q=0.9'),
      ask('fr-FR'),
      ask('ja'),
      ask('ja, fr;q=0.5, de;q=0.8'),
    ]);
    expect([en, de, fr, other, weighted].map((r) => r.headers['content-language'])).toEqual([
      'en',
      'de',
      'fr',
      'en',
      'de',
    ]);
    expect(new Set([en, de, fr, other].map((r) => r.json.code))).toEqual(new Set(['validation_failed']));
    expect(de.json.errors[0]).toEqual({ field: 'name', code: 'required', message: 'Dieses Feld ist erforderlich.' });
    expect(fr.json.errors[0].message).toBe('Ce champ est obligatoire.');
    expect(en.json.errors[0].message).toBe('This field is required.');
  });

  it('passes a same-origin browser POST and one with no origin headers', async () => {
    const origin = `http://localhost:${gw.port}`;
    expect(
      (await gw.form('/users/register', registration(), { headers: { origin, 'sec-fetch-site': 'same-origin' } }))
        .status,
    ).toBe(201);
    expect((await gw.form('/users/register', registration())).status).toBe(201);
  });

  it('answers health and readiness', async () => {
    expect((await gw.send('GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await gw.send('GET', '/readyz')).json).toEqual({ status: 'ready' });
  });

  it('never writes a password, token, cookie or body into the log, and logs one line per request', async () => {
    const password = 'unique-canary-passphrase-4711';
    const email = uniqueEmail('log');
    const before = gw.logs.length;
    const reg = await gw.form('/users/register', registration(email, password));
    await gw.form('/users/login', { email, password: `${password}-wrong` });
    await gw.form('/users/change_password', change(password, `${password}-next`), { headers: { cookie: reg.cookie! } });
    const text = gw.logs.join('');
    expect(text).not.toContain(password);
    expect(text).not.toContain(reg.cookie!.split('=')[1]!);
    expect(text).not.toContain(encodeURIComponent(password));
    const lines = gw.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === 'request').map((l) => [l.realm, l.route, l.status])).toEqual([
      ['default', '/users/register', 201],
      ['default', '/users/login', 422],
      ['default', '/users/change_password', 200],
    ]);
    expect(lines.every((l) => typeof l.ms === 'number' || l.msg !== 'request')).toBe(true);
  });
});

void SEED_HEADERS;
