import { testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSession, userByEmail } from '../support/accounts.js';
import { countRows, expectProblem } from '../support/checks.js';
import { registration, startGateway, uniqueEmail, type Gateway } from '../support/gateway.js';
import { rawRequest } from '../support/raw-http.js';

// The edges of HTTP itself: what a request-target, a Host, a header count, a protocol version,
// a method, a scheme or a media type may look like, and what the service makes of each.

const JSON_TYPE = { 'content-type': 'application/json' };

describe.each(testDrivers())('protocol edges on %s', (driver) => {
  let gw: Gateway;
  let email: string;
  let token: string;

  beforeAll(async () => {
    // Behind a trusted proxy, so X-Forwarded-Proto and -Host would be believed where they are read.
    gw = await startGateway(driver, {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '50',
      RATE_LIMIT_FORGOT_PASSWORD: '1000',
    });
    email = uniqueEmail('edges');
    expect((await gw.form('/users/register', registration(email))).status).toBe(201);
    token = await mintSession(gw.db.db, (await userByEmail(gw.db.db, email))!.id);
  });
  afterAll(() => gw?.close());

  const raw = (lines: string[], body = '') => rawRequest(gw.port, `${lines.join('\r\n')}\r\n\r\n${body}`);

  it('builds mail links from configuration (PORT, no PUBLIC_URL), never from a forged Host, port or scheme', async () => {
    const forged = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'localhost:31337' };
    const res = await gw.send('POST', '/users/forgot_password', {
      host: 'localhost',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...forged },
      body: new URLSearchParams({ email }).toString(),
    });
    expect(res.status).toBe(202);
    const line = () => gw.logs.find((l) => l.includes('"template":"reset_password"') && l.includes(email));
    await expect.poll(line, { timeout: 10_000 }).toBeTruthy();
    const link = JSON.parse(line()!).mail.link as string;
    // The defaults: http, and the port the server is configured to listen on (PORT, 3000).
    expect(link).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/);
  });

  it('refuses a Host (or a trusted X-Forwarded-Host) that is not host[:port] with 400 invalid_host, and changes nothing', async () => {
    const before = await countRows(gw.db.db);
    const form = registration(uniqueEmail('host'));
    const body = new URLSearchParams(form).toString();
    const post = (host: string, extra: string[] = []) =>
      raw(
        [
          'POST /users/register HTTP/1.1',
          `Host: ${host}`,
          ...extra,
          'Content-Type: application/x-www-form-urlencoded',
          `Content-Length: ${body.length}`,
          'Connection: close',
        ],
        body,
      );
    for (const host of [
      'localhost:abc',
      'localhost:99999',
      'localhost:0',
      ':99999',
      ':4101',
      'localhost:4101:5',
      'localhost:',
      '/x',
      'local host',
      'localhost/x',
      'user@localhost',
      '[::1',
      '[nope]:80',
      'localhost:+80',
    ]) {
      const res = await post(host);
      expect({ host, status: res.status }).toEqual({ host, status: 400 });
      expect(res.head).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(res.body).code, host).toBe('invalid_host');
    }
    // What the trusted proxy says the host is gets the same check.
    const forwarded = await post('localhost', ['X-Forwarded-Host: localhost:abc']);
    expect(forwarded.status).toBe(400);
    expect(JSON.parse(forwarded.body).code).toBe('invalid_host');
    expect(await countRows(gw.db.db)).toEqual(before);
    // Valid forms still reach their realm.
    for (const host of ['localhost', 'LOCALHOST:4101', '127.0.0.1:80', '[::1]:3000', 'acme.localhost:65535']) {
      const res = await raw([
        'GET /users/me HTTP/1.1',
        `Host: ${host}`,
        `Cookie: session=${token}`,
        'Connection: close',
      ]);
      expect({ host, status: res.status }).toEqual({ host, status: host.startsWith('acme') ? 401 : 200 });
    }
  });

  it('sends no-store on personal answers whatever form the request-target takes', async () => {
    const auth = [`Cookie: session=${token}`, 'Connection: close'];
    for (const target of [
      '/users/me',
      '/%75sers/me',
      '/users/me?x=1',
      `http://localhost:${gw.port}/users/me`,
      `HTTP://LOCALHOST:${gw.port}/%75sers/me`,
    ]) {
      const res = await raw([`GET ${target} HTTP/1.1`, `Host: localhost:${gw.port}`, ...auth]);
      expect({ target, status: res.status }).toEqual({ target, status: 200 });
      expect(JSON.parse(res.body).user.email, target).toBe(email);
      expect(res.head, target).toMatch(/^cache-control: no-store$/im);
    }
    for (const target of [
      '/trpc/account.me',
      '/%74rpc/account.me',
      '/trpc/%61ccount.me',
      `http://localhost:${gw.port}/%74rpc/account.me`,
    ]) {
      const res = await raw([`GET ${target} HTTP/1.1`, `Host: localhost:${gw.port}`, ...auth]);
      expect({ target, status: res.status }).toEqual({ target, status: 200 });
      expect(res.head, target).toMatch(/^cache-control: no-store$/im);
    }
    // Refusals under an encoded prefix are still answered in tRPC's shape.
    const refused = await raw(['GET /%74rpc/account.me HTTP/1.1', `Host: localhost:${gw.port}`, 'Connection: close']);
    expect(refused.status).toBe(401);
    // (Sent chunked: the JSON is between the chunk's size line and the last chunk.)
    expect(
      JSON.parse(refused.body.slice(refused.body.indexOf('{'), refused.body.lastIndexOf('}') + 1)).error.data.problem
        .code,
    ).toBe('unauthenticated');
  });

  it('refuses an absolute-form target whose authority is not the Host, without serving or redirecting', async () => {
    const before = await countRows(gw.db.db);
    for (const target of [
      'http://evil.example/users/me',
      `http://localhost:${gw.port + 1}/users/me`,
      `ftp://localhost:${gw.port}/users/me`,
      `http://user@localhost:${gw.port}/users/me`,
    ]) {
      const res = await raw([
        `GET ${target} HTTP/1.1`,
        `Host: localhost:${gw.port}`,
        `Cookie: session=${token}`,
        'Connection: close',
      ]);
      expect({ target, status: res.status }).toEqual({ target, status: 400 });
      expect(JSON.parse(res.body).code).toBe('invalid_host');
      expect(res.head).not.toMatch(/^location:/im);
    }
    const post = await raw([
      'POST http://evil.example/x HTTP/1.1',
      `Host: localhost:${gw.port}`,
      'Accept: text/html',
      'Content-Length: 0',
      'Connection: close',
    ]);
    expect(post.status).toBe(400);
    expect(post.head).not.toMatch(/^location:/im);
    expect(await countRows(gw.db.db)).toEqual(before);
  });

  it("refuses more header lines than it keeps (431), so a proxy's X-Forwarded-For after them is never lost", async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: b`);
    // Host, Cookie, Connection and X-Forwarded-For are four of the lines.
    const kept = await raw([
      'GET /users/me HTTP/1.1',
      'Host: localhost',
      `Cookie: session=${token}`,
      ...filler(1996),
      'X-Forwarded-For: 198.51.100.7',
      'Connection: close',
    ]);
    expect(kept.status).toBe(200);
    const over = await raw([
      'GET /users/me HTTP/1.1',
      'Host: localhost',
      `Cookie: session=${token}`,
      ...filler(1997),
      'X-Forwarded-For: 198.51.100.7',
      'Connection: close',
    ]);
    expect(over.status).toBe(431);
    expectProblem(JSON.parse(over.body), 431, 'over 2000 header lines');
    expect(JSON.parse(over.body).code).toBe('headers_too_large');
  });

  it('refuses an HTTP/1.0 request with Transfer-Encoding (400) and closes the connection', async () => {
    const before = await countRows(gw.db.db);
    const body = new URLSearchParams(registration(uniqueEmail('http10'))).toString();
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    // Kept alive, a second request on the same connection would be answered too.
    const res = await rawRequest(
      gw.port,
      `POST /users/register HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n${chunked}` +
        'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n',
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.slice(0, res.body.lastIndexOf('}') + 1)).code).toBe('invalid_body');
    expect(res.head).toMatch(/^connection: close$/im);
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(await countRows(gw.db.db)).toEqual(before);
  });

  it('takes the Bearer scheme in any case (RFC 9110 §11.1)', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const res = await gw.send('GET', '/users/me', { headers: { authorization: `${scheme} ${token}` } });
      expect({ scheme, status: res.status }).toEqual({ scheme, status: 200 });
      const trpc = await gw.send('GET', '/trpc/account.me', { headers: { authorization: `${scheme} ${token}` } });
      expect({ scheme, status: trpc.status }).toEqual({ scheme, status: 200 });
    }
    // A bearer client gets its new session in the body, not in a cookie, whatever the case of the scheme.
    const res = await gw.form(
      '/users/login',
      { email, password: registration().password },
      { headers: { authorization: `bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(res.json.session.token).toMatch(/\S{20,}/);
    expect(res.headers['set-cookie']).toBeUndefined();
    token = await mintSession(gw.db.db, (await userByEmail(gw.db.db, email))!.id);
  });

  it('answers a method a route does not take with 405 and Allow', async () => {
    const cases: [string, string, string][] = [
      ['PUT', '/users/register', 'POST'],
      ['DELETE', '/users/me', 'GET, HEAD'],
      ['PATCH', '/%75sers/login', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['PUT', '/trpc/account.me', 'GET'],
      ['GET', '/trpc/account.signIn', 'POST'],
      ['HEAD', '/trpc/account.settings', 'GET'],
      ['DELETE', '/trpc/account.register', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await gw.send(method, path, { headers: { cookie: `session=${token}` } });
      expect({ method, path, status: res.status, allow: res.headers.allow }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      if (method !== 'HEAD') expect(res.text).toMatch(/method_not_allowed/);
    }
    // An address that has no route at all is not found, whatever the method.
    for (const [method, path] of [
      ['PUT', '/nope'],
      ['DELETE', '/users/nope'],
      ['PUT', '/trpc/no.such'],
    ] as const) {
      const res = await gw.send(method, path);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
  });

  it('compares media types case-insensitively', async () => {
    const signIn = JSON.stringify({ email, password: registration().password });
    for (const type of ['APPLICATION/JSON', 'Application/Json; Charset=UTF-8']) {
      const res = await gw.send('POST', '/trpc/account.signIn', {
        headers: { 'content-type': type, 'x-session-delivery': 'token' },
        body: signIn,
      });
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
    }
    const form = await gw.send('POST', '/users/login', {
      headers: { 'content-type': 'APPLICATION/X-WWW-FORM-URLENCODED; CHARSET=UTF-8', 'x-session-delivery': 'token' },
      body: new URLSearchParams({ email, password: registration().password }).toString(),
    });
    expect(form.status).toBe(200);
    const wrong = await gw.send('POST', '/trpc/account.signIn', {
      headers: { 'content-type': 'TEXT/PLAIN' },
      body: signIn,
    });
    expect(wrong.status).toBe(415);
    expect((await gw.send('POST', '/trpc/account.signIn', { headers: JSON_TYPE, body: '{}' })).status).toBe(422);
  });
});
