import { connect, type Socket } from 'node:net';
import { testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findRealm, type AppRouter } from '@accounts/api';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { passkeys, sessions, users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { FORM_ROUTES } from '../src/form-routes.js';
import { mintSession } from './support/accounts.js';
import { countRows, expectProblem } from './support/checks.js';
import {
  registration,
  startGateway,
  STRONG,
  STRONG2,
  uniqueEmail,
  type Gateway,
  type Response,
} from './support/gateway.js';
import { queuedToken } from './support/email-openapi.js';
import { openApiOf } from './support/openapi.js';
import { postJson } from './support/passkeys.js';

/** A connection that sends bytes when told and collects everything the server answers. */
function openConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    write: (bytes: string) => new Promise<void>((resolve) => socket.write(bytes, () => resolve())),
    /** Everything received once the server has closed the connection. */
    answer: async () => {
      await closed;
      const [head = '', body = ''] = received.split('\r\n\r\n');
      return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body };
    },
  };
}

/** A raw answer as the Response the OpenAPI check reads. */
const asResponse = (raw: { status: number; head: string; body: string }): Response => {
  const headers = Object.fromEntries(
    raw.head
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: raw.status, headers, text: raw.body, json: JSON.parse(raw.body) };
};

describe.each(testDrivers())('stopping on %s', (driver) => {
  it('answers /readyz and new requests with 503 problem+json while finishing the requests in flight, all with Connection: close', async () => {
    const gw = await startGateway(driver);
    try {
      const api = await openApiOf(gw);
      const login = 'email=someone%40example.com&password=not+the+password';
      // A request in flight: its body is only half sent when the stop begins.
      const inFlight = openConnection(gw.port);
      await inFlight.write(
        `POST /users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${login.length}\r\n\r\n${login.slice(0, 10)}`,
      );
      // Requests begun on open connections (readiness, and every form route), completed during the stop.
      const begun = [{ method: 'GET', url: '/readyz' }, ...FORM_ROUTES].map(({ method, url }) => {
        const conn = openConnection(gw.port);
        const sent = conn.write(
          `${method} ${url} HTTP/1.1\r\nHost: localhost\r\n${method === 'POST' ? 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n' : ''}`,
        );
        return { method, url, conn, sent };
      });
      await Promise.all(begun.map((b) => b.sent));
      // Node's own count of connections with a request under way (its internal list): once the
      // server has read the start of every request, the stop cannot mistake them for idle ones.
      const server = gw.app.server as unknown as Record<symbol, { active(): unknown[] }>;
      const connections =
        server[Object.getOwnPropertySymbols(server).find((k) => k.description === 'http.server.connections')!]!;
      await vi.waitFor(() => expect(connections.active()).toHaveLength(begun.length + 1));

      const stopped = gw.app.close();
      await vi.waitFor(() => expect(gw.app.draining).toBe(true));
      for (const { conn } of begun) await conn.write('Connection: keep-alive\r\n\r\n');
      await inFlight.write(login.slice(10));

      for (const { method, url, conn } of begun) {
        const res = await conn.answer();
        expect(res.status, url).toBe(503);
        expect(res.head).toMatch(/^content-type: application\/problem\+json/im);
        expect(res.head).toMatch(/^retry-after: 5$/im);
        expect(res.head).toMatch(/^connection: close$/im);
        expectProblem(JSON.parse(res.body), 503, 'while stopping');
        expect(JSON.parse(res.body).code).toBe('not_ready');
        if (url.startsWith('/users/')) api.check(method, url, asResponse(res));
      }
      // The request that was in flight is answered as usual, and closes its connection.
      const finished = await inFlight.answer();
      expect(finished.status).toBe(422);
      expect(JSON.parse(finished.body).errors[0].code).toBe('credentials_invalid');
      expect(finished.head).toMatch(/^connection: close$/im);
      await stopped;
    } finally {
      await gw.close();
    }
  });
});

describe.each(testDrivers())('load shedding over HTTP on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    // One hashing thread and a queue of one; a cost high enough that the blockers below are still hashing.
    // Mails stay queued, so the reset link is read from the outbox before the sender could take it.
    gw = await startGateway(driver, { BCRYPT_COST: '14', HASH_WORKERS: '1', HASH_QUEUE_MAX: '1', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw.close());

  it('answers 503 server_busy with Retry-After on the hashing form routes and /trpc when the queue is full, writing nothing', async () => {
    const api = await openApiOf(gw);
    // A signed-in account, made without hashing (the pool is about to be full).
    const realm = (await findRealm(gw.db.db, 'default'))!;
    const [user] = await gw.db.db
      .insert(users)
      .values({ realmId: realm.id, name: 'Busy', email: uniqueEmail('busy'), passwordHash: 'unused' })
      .returning();
    const cookie = `session=${await mintSession(gw.db.db, user!.id)}`;
    expect((await gw.form('/users/forgot_password', { email: user!.email })).status).toBe(202);
    const token = await queuedToken(gw.db.db, user!.email, 'reset_password');
    await mintSession(gw.db.db, user!.id);
    const otherSession = (await gw.send('GET', '/users/sessions', { headers: { cookie } })).json.sessions.find(
      (s: { current: boolean }) => !s.current,
    ).id;
    // A passkey to remove, and a session whose password check is too old to add one without the password.
    const [passkey] = await gw.db.db
      .insert(passkeys)
      .values({
        userId: user!.id,
        credentialId: 'AAAA',
        publicKey: 'AAAA',
        aaguid: '00000000-0000-0000-0000-000000000000',
        deviceType: 'singleDevice',
        backedUp: false,
        name: 'Phone',
      })
      .returning();
    await gw.db.db.update(sessions).set({ passwordCheckedAt: null }).where(eq(sessions.userId, user!.id));
    const before = await countRows(gw.db.db);
    const blockers = [gw.hasher.hash('one running'), gw.hasher.hash('one waiting')];
    try {
      for (const [url, fields] of [
        ['/users/register', registration()],
        ['/users/login', { email: user!.email, password: STRONG }],
        ['/users/change_password', { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 }],
        ['/users/reset_password', { token, new_password: STRONG2, confirm_password: STRONG2 }],
        ['/users/delete_account', { current_password: STRONG }],
        ['/users/revoke_session', { session_id: otherSession, current_password: STRONG }],
        ['/users/revoke_other_sessions', { current_password: STRONG }],
        ['/users/totp/enable', { code: '123456', current_password: STRONG }],
        ['/users/totp/disable', { current_password: STRONG, code: '123456' }],
        ['/users/recovery_codes', { current_password: STRONG }],
      ] as const) {
        const res = await gw.form(url, fields, { headers: { cookie } });
        expect(res.status, url).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json).toMatchObject({ status: 503, code: 'server_busy', retryAfter: 2 });
        api.check('POST', url, res);
      }
      // The passkey routes that check a password (JSON bodies).
      for (const [url, body] of [
        ['/users/passkeys/register/options', { current_password: STRONG }],
        ['/users/passkeys/remove', { passkey_id: passkey!.id, current_password: STRONG }],
      ] as const) {
        const res = await postJson(gw, url, body, { cookie });
        expect(res.status, url).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json).toMatchObject({ status: 503, code: 'server_busy', retryAfter: 2 });
        api.check('POST', url, res);
      }
      const trpc = await gw.send('POST', '/trpc/account.register', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registration()),
      });
      expect(trpc.status).toBe(503);
      expect(trpc.headers['retry-after']).toBe('2');
      expect(trpc.json.error.data).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        problem: { code: 'server_busy', retryAfter: 2 },
      });
      // A typed client reads the same.
      const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `http://localhost:${gw.port}/trpc` })] });
      const refused = await client.account.register.mutate(registration()).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TRPCClientError);
      expect((refused as TRPCClientError<AppRouter>).data).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        httpStatus: 503,
        problem: { code: 'server_busy', retryAfter: 2 },
      });
    } finally {
      await Promise.all(blockers);
    }
    expect(await countRows(gw.db.db)).toEqual(before);
  });
});

describe.each(testDrivers())('paths on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver);
  });
  afterAll(() => gw.close());

  it('answers a path that does not decode with 404 not_found, as problem+json or under /trpc as a tRPC error', async () => {
    for (const path of ['/users/%E0%A4%A', '/users/me%', '/%ZZ']) {
      const res = await gw.send('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json.code).toBe('not_found');
    }
    const trpc = await gw.send('GET', '/trpc/account.%E0%A4%A');
    expect(trpc.status).toBe(404);
    expect(trpc.json.error.data).toMatchObject({ code: 'NOT_FOUND', problem: { code: 'not_found' } });
  });
});
