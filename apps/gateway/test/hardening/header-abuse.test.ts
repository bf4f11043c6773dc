import { testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSession, userByEmail } from '../support/accounts.js';
import { countRows, expectCleanFormAnswer, expectProblem } from '../support/checks.js';
import { registration, startGateway, uniqueEmail, type Gateway } from '../support/gateway.js';
import { rawRequest } from '../support/raw-http.js';

describe.each(testDrivers())('header abuse on %s', (driver) => {
  let gw: Gateway;
  let token: string;

  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: 'false', RATE_LIMIT_SIGN_IN: '3' });
    const email = uniqueEmail('headers');
    await gw.form('/users/register', registration(email));
    token = await mintSession(gw.db.db, (await userByEmail(gw.db.db, email))!.id);
  });
  afterAll(() => gw?.close());

  it('answers headers over 16 KiB with 431 problem+json and keeps serving', async () => {
    const res = await gw.send('GET', '/users/me', { headers: { cookie: `a=${'x'.repeat(20_000)}; session=${token}` } });
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expectProblem(res.json, 431, 'huge cookie');
    expect(res.json.code).toBe('headers_too_large');
    const many = await gw.send('GET', '/users/me', {
      headers: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'y'.repeat(60)])),
    });
    expect(many.status).toBe(431);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: `session=${token}` } })).status).toBe(200);
  });

  it('finds the session among many cookies, takes the first of duplicates, and ignores garbage', async () => {
    const crowd = Array.from({ length: 1000 }, (_, i) => `c${i}=${i}`).join('; ');
    expect((await gw.send('GET', '/users/me', { headers: { cookie: `${crowd}; session=${token}` } })).status).toBe(200);
    expect((await gw.send('GET', '/users/me', { headers: { cookie: `session=${token}; session=nope` } })).status).toBe(
      200,
    );
    for (const cookie of [
      `session=nope; session=${token}`,
      'session=%ZZ',
      'session="unterminated',
      `session=${token}\u00a0`.replace('\u00a0', '%A0'),
      ';;;=;==',
    ] as const) {
      const res = await gw.send('GET', '/users/me', { headers: { cookie } });
      expect(res.status, cookie.slice(0, 40)).toBe(401);
      expectCleanFormAnswer(res, cookie);
    }
  });

  it('answers a forged Host for an unknown realm with 404 and creates nothing', async () => {
    const before = await countRows(gw.db.db);
    for (const host of [
      'evil.example.com',
      'nope.localhost',
      'localhost.evil.com',
      'a..localhost',
      'x.acme.localhost',
      '-acme.localhost',
      `${'a'.repeat(64)}.localhost`,
    ]) {
      const res = await gw.form('/users/register', registration(), { host });
      expect({ host, status: res.status, code: res.json?.code }).toEqual({
        host,
        status: 404,
        code: 'realm_not_found',
      });
    }
    // A request with no Host at all addresses no realm (documented: 404 realm_not_found).
    const noHost = await rawRequest(
      gw.port,
      `POST /users/register HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expect(noHost.status).toBe(404);
    expect(noHost.head).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(noHost.body).code).toBe('realm_not_found');
    expect(await countRows(gw.db.db)).toEqual(before);
  });

  it('does not let X-Forwarded-Host pick the realm when the proxy is not trusted', async () => {
    const res = await gw.form('/users/register', registration(), {
      headers: { 'x-forwarded-host': 'acme.localhost', forwarded: 'host=acme.localhost' },
    });
    expect(res.status).toBe(201);
    expect(res.json.user.realm).toBe('default');
    const unknown = await gw.form('/users/register', registration(), {
      headers: { 'x-forwarded-host': 'nope.localhost' },
    });
    expect(unknown.status).toBe(201);
  });

  it('counts the rate limit by the socket address, whatever X-Forwarded-For says, when the proxy is not trusted', async () => {
    const tries = [];
    for (let i = 0; i < 4; i++) {
      const spoofed = {
        'x-forwarded-for': `198.51.100.${i + 10}`,
        forwarded: `for=198.51.100.${i + 10}`,
        'x-real-ip': `198.51.100.${i + 10}`,
      };
      tries.push(
        await gw.form(
          '/users/login',
          { email: uniqueEmail('xff'), password: 'not the password at all' },
          { headers: spoofed },
        ),
      );
    }
    expect(tries.map((r) => r.status)).toEqual([422, 422, 422, 429]);
    expect(tries[3]!.json.code).toBe('rate_limited');
  });

  it('answers a malformed request line or header as problem+json, and keeps serving', async () => {
    const bad = [
      'GET /users/me HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\nConnection: close\r\n\r\n',
      'GET /users/me HTTP/9.9\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      'G\u0000T /users/me HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      'POST /users/login HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\nemail',
      'POST /users/login HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\nConnection: close\r\n\r\n0\r\n\r\n',
    ];
    for (const request of bad) {
      const raw = await rawRequest(gw.port, request);
      expect(raw.status, JSON.stringify(request)).toBe(400);
      expect(raw.head).toMatch(/content-type: application\/problem\+json/i);
      expectProblem(JSON.parse(raw.body), 400, request);
    }
    expect((await gw.send('GET', '/healthz')).status).toBe(200);
  });
});
