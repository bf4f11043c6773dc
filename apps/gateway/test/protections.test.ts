import { createHasher } from '@accounts/api';
import { openDatabase } from '@accounts/db';
import { httpClient, testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer } from '../src/server.js';
import { registration, startGateway, STRONG, uniqueEmail, type Gateway } from './support/gateway.js';

const json = { 'content-type': 'application/json' };

describe.each(testDrivers())('protections on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { RATE_LIMIT_REGISTER: '3', RATE_LIMIT_SIGN_IN: '1000', TRUST_PROXY: 'false' });
  });
  afterAll(() => gw.close());

  it('limits registrations per client address across the form route and /trpc, with Retry-After', async () => {
    const statuses = [];
    statuses.push((await gw.form('/users/register', registration())).status);
    statuses.push(
      (await gw.form('/users/register', registration(), { headers: { 'x-forwarded-for': '198.51.100.1' } })).status,
    );
    statuses.push(
      (await gw.send('POST', '/trpc/account.register', { headers: json, body: JSON.stringify(registration()) })).status,
    );
    const limited = await gw.form('/users/register', registration(), {
      headers: { 'x-forwarded-for': '198.51.100.2' },
    });
    const limitedTrpc = await gw.send('POST', '/trpc/account.register', {
      headers: json,
      body: JSON.stringify(registration()),
    });
    expect(statuses).toEqual([201, 201, 200]);
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limitedTrpc.status).toBe(429);
    expect(limitedTrpc.json.error.data.problem.code).toBe('rate_limited');
    expect(Number(limitedTrpc.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('serves the same procedures over /trpc with the same rules', async () => {
    const settings = await gw.send('GET', '/trpc/account.settings');
    expect(settings.json.result.data).toEqual({
      productName: 'Accounts',
      realm: { slug: 'default', name: 'Accounts', isDefault: true, named: false },
      passwordPolicy: { minLength: 15, maxLength: 256 },
    });
    const acme = await gw.send('GET', '/trpc/account.settings', { host: 'acme.localhost' });
    expect(acme.json.result.data.realm).toEqual({ slug: 'acme', name: 'Acme Inc', isDefault: false, named: true });
    const bad = await gw.send('POST', '/trpc/account.signIn', {
      headers: json,
      body: JSON.stringify({ email: 'nope', password: '' }),
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.data.problem).toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: 'email', code: 'invalid_email' },
        { field: 'password', code: 'required' },
      ],
    });
    expect(JSON.stringify(bad.json)).not.toMatch(/stack|\.ts:\d+/);
    const me = await gw.send('GET', '/trpc/account.me');
    expect(me.status).toBe(401);
    expect(me.json.error.data.problem.code).toBe('unauthenticated');
  });

  it('refuses a mutation over GET, with text/plain, with a form body, or from another origin', async () => {
    const input = encodeURIComponent(JSON.stringify({ email: 'a@example.com', password: 'x' }));
    expect((await gw.send('GET', `/trpc/account.signIn?input=${input}`)).status).toBe(405);
    expect(
      (await gw.send('POST', '/trpc/account.signOut', { headers: { 'content-type': 'text/plain' }, body: '{}' }))
        .status,
    ).toBe(415);
    expect(
      (
        await gw.send('POST', '/trpc/account.signIn', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'email=a',
        })
      ).status,
    ).toBe(415);
    const cross = await gw.send('POST', '/trpc/account.signOut', {
      headers: { ...json, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(cross.status).toBe(403);
    expect(cross.json.error.data.problem.code).toBe('cross_origin');
    expect((await gw.send('POST', '/trpc/account.signIn', { headers: json, body: '{"email":' })).status).toBe(400);
    expect((await gw.send('POST', '/trpc/account.nothing', { headers: json, body: '{}' })).status).toBe(404);
  });
});

describe('behind a TLS-terminating proxy', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(testDrivers()[0]!, {
      TRUST_PROXY: '127.0.0.1',
      TRUSTED_ORIGINS: 'https://www.example.net',
    });
  });
  afterAll(() => gw.close());

  it('sets a Secure __Host- cookie when reached over https, and accepts it back', async () => {
    const res = await gw.form('/users/register', registration(), {
      headers: { 'x-forwarded-proto': 'https', origin: `https://localhost:${gw.port}` },
    });
    expect(res.status).toBe(201);
    expect([res.headers['set-cookie']].flat().find((c) => c?.startsWith('__Host-session='))).toMatch(
      /^__Host-session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
    );
    const me = await gw.send('GET', '/users/me', { headers: { cookie: res.cookie!, 'x-forwarded-proto': 'https' } });
    expect(me.status).toBe(200);
  });

  it('delivers tokens in the body on /trpc too when asked, with no cookie', async () => {
    const viaTrpc = await gw.send('POST', '/trpc/account.signIn', {
      headers: { ...json, 'x-session-delivery': 'token' },
      body: JSON.stringify({
        email: (await gw.form('/users/register', registration(), { host: 'acme.localhost' })).json.user.email,
        password: STRONG,
      }),
      host: 'acme.localhost',
    });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.headers['set-cookie']).toBeUndefined();
    expect(viaTrpc.json.result.data.session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(viaTrpc.json.result.data.knownDevice).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('accepts a POST from an origin in TRUSTED_ORIGINS', async () => {
    const res = await gw.form('/users/register', registration(), {
      headers: { origin: 'https://www.example.net', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(201);
  });

  it('stops password guessing on one account after 5 failures, even with the right password, with Retry-After', async () => {
    const email = uniqueEmail('guess');
    await gw.form('/users/register', registration(email), { host: 'acme.localhost' });
    for (let i = 0; i < 5; i++) {
      expect(
        (await gw.form('/users/login', { email, password: `wrong password ${i}` }, { host: 'acme.localhost' })).status,
      ).toBe(422);
    }
    const locked = await gw.form('/users/login', { email, password: STRONG }, { host: 'acme.localhost' });
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('too_many_attempts');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
  });
});

// The proxy named by its address, or by the number of hops in front (Express's meaning).
describe.each(['127.0.0.1', '1'])('rate limits behind a trusted proxy (TRUST_PROXY=%s)', (trustProxy) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(testDrivers()[0]!, { TRUST_PROXY: trustProxy, RATE_LIMIT_SIGN_IN: '2' });
  });
  afterAll(() => gw.close());

  it('counts sign-ins by the forwarded client address, not by the proxy address', async () => {
    const login = (forwardedFor?: string) =>
      gw.form(
        '/users/login',
        { email: uniqueEmail(), password: 'nope nope nope' },
        { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} },
      );
    expect([(await login('203.0.113.9')).status, (await login('203.0.113.9')).status]).toEqual([422, 422]);
    const third = await login('203.0.113.9');
    expect(third.status).toBe(429);
    expect(third.json.code).toBe('rate_limited');
    // Addresses a client writes in front of the one the proxy appended change nothing.
    expect((await login('198.51.100.1, 203.0.113.9')).status).toBe(429);
    // Every request came from 127.0.0.1: other forwarded addresses, and the proxy itself, still have their own allowance.
    expect((await login('203.0.113.10')).status).toBe(422);
    expect((await login()).status).toBe(422);
  });
});

describe('when the database is unreachable', () => {
  it('answers 503 not_ready on /readyz and on the routes, and stays up', async () => {
    const config = loadConfig({ PORT: '0', BCRYPT_COST: '4', LOG_LEVEL: 'silent', SERVE_WEB: 'false' });
    const database = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    const hasher = await createHasher({ cost: 4, pepper: 'unreachable-database-test-pepper-0123456789', workers: 1 });
    const server = await createServer(config, { database, hasher });
    await server.start();
    const client = httpClient((server.app.server.address() as { port: number }).port);
    try {
      const ready = await client.send('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ code: 'not_ready' });
      const reg = await client.form('/users/register', registration());
      expect(reg.status).toBe(503);
      expect(reg.headers['retry-after']).toBe('5');
      expect(reg.json).toMatchObject({ code: 'not_ready' });
      expect((await client.send('GET', '/healthz')).status).toBe(200);
    } finally {
      await client.close();
      await server.stop();
      await hasher.close();
      await database.close();
    }
  });
});
