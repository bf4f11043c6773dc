import { testDrivers } from '@accounts/testing';
import { normalizeName } from '@accounts/validators';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepUnderSessionCap, mintSession, startFuzzTarget } from '../support/accounts.js';
import { contentType, formBody, hostileText, JSON_TYPE, jsonBody } from '../support/arbitraries.js';
import { assertProperty, countRows, expectCleanTrpcAnswer } from '../support/checks.js';
import { registration, STRONG, STRONG2, uniqueEmail, type Gateway } from '../support/gateway.js';

// Generated calls to /trpc: malformed JSON, batch paths, wrong methods and content types.
// Every answer is JSON in tRPC's error envelope carrying a documented problem, and a
// refused call writes nothing.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const MUTATIONS = {
  'account.register': ['name', 'email', 'password', 'password2'],
  'account.signIn': ['email', 'password'],
  'account.signOut': [],
  'account.changePassword': ['current_password', 'new_password', 'confirm_password'],
} as const;
const QUERIES = ['account.me', 'account.settings'];
type Procedure = keyof typeof MUTATIONS | 'account.me' | 'account.settings';

const PROCEDURES = [...Object.keys(MUTATIONS), ...QUERIES];
const isMutation = (p: string): p is keyof typeof MUTATIONS => p in MUTATIONS;
const decoded = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

describe.each(testDrivers())('hostile /trpc calls on %s', (driver) => {
  let gw: Gateway;
  let ownerId: string;
  let ownerEmail: string;
  let ownerPassword = STRONG;
  let drawn = 0;
  const seen = new Set<number>();

  beforeAll(async () => {
    ({ gw, ownerEmail, ownerId } = await startFuzzTarget(driver));
  });
  afterAll(() => gw?.close());

  /** The input a real client would send, read when drawn (the owner's password moves on). */
  const validInput: Record<Procedure, () => Record<string, string>> = {
    'account.register': () => registration(++drawn % 2 ? uniqueEmail('trpc') : ownerEmail),
    'account.signIn': () => ({ email: ownerEmail, password: ownerPassword }),
    'account.signOut': () => ({}),
    'account.changePassword': () => {
      const next = ownerPassword === STRONG ? STRONG2 : STRONG;
      return { current_password: ownerPassword, new_password: next, confirm_password: next };
    },
    'account.me': () => ({}),
    'account.settings': () => ({}),
  };

  const procedure = fc.constantFrom<Procedure>(
    ...(Object.keys(MUTATIONS) as Procedure[]),
    'account.me',
    'account.settings',
  );
  const oddPath = fc.constantFrom(
    'account.signIn,account.me?batch=1',
    'account.register,account.register?batch=1',
    'account.me?batch=1&input=%7B%220%22%3A%7B%7D%7D',
    'account.nothing',
    'account',
    '',
    'account.register.extra',
    '__proto__',
    'constructor.prototype',
    '%ZZ',
    'account.%73ignIn',
    'account.me?input=%7B',
    'account.settings?input=%ZZ',
    `account.me?input=${'%5B'.repeat(3000)}`,
    'account.signOut?batch=1&input=',
  );

  const spoiled = (p: Procedure) =>
    fc.tuple(fc.nat(9), hostileText).map(([i, bad]) => {
      const input = validInput[p]();
      const keys = Object.keys(input);
      if (i < keys.length) input[keys[i]!] = bad;
      return Buffer.from(JSON.stringify(input));
    });

  const call = procedure.chain((p) =>
    fc.record({
      procedure: fc.constant(p),
      path: fc.oneof({ weight: 5, arbitrary: fc.constant(p as string) }, { weight: 1, arbitrary: oddPath }),
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant(isMutation(p) ? 'POST' : 'GET') },
        { weight: 2, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
      ),
      type: fc.oneof(
        { weight: 3, arbitrary: fc.constant<string | undefined>(JSON_TYPE) },
        { weight: 2, arbitrary: contentType },
      ),
      body: fc.oneof(
        { weight: 3, arbitrary: jsonBody(isMutation(p) ? MUTATIONS[p] : []) },
        { weight: 4, arbitrary: spoiled(p) },
        { weight: 1, arbitrary: formBody(isMutation(p) ? MUTATIONS[p] : []) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc
            .integer({ min: 16 * 1024, max: 64 * 1024 })
            .map((n) => Buffer.from(JSON.stringify({ name: 'x'.repeat(n) }))),
        },
      ),
      auth: fc.constantFrom('none', 'cookie', 'bearer', 'garbage'),
      host: fc.constantFrom(
        'localhost',
        'localhost',
        'localhost',
        'localhost',
        'localhost',
        'acme.localhost',
        'nope.localhost',
      ),
      crossSite: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  );

  it(
    `answers ${RUNS * 3} generated calls cleanly and writes nothing for a refused one`,
    { timeout: 180_000 },
    async () => {
      await assertProperty(
        call,
        async (c) => {
          await keepUnderSessionCap(gw.db.db, ownerId);
          const headers: Record<string, string> = {};
          if (c.type !== undefined) headers['content-type'] = c.type;
          if (c.auth === 'cookie') headers.cookie = `session=${await mintSession(gw.db.db, ownerId)}`;
          if (c.auth === 'bearer') headers.authorization = `Bearer ${await mintSession(gw.db.db, ownerId)}`;
          if (c.auth === 'garbage') headers.cookie = 'session=%00%ZZ';
          if (c.crossSite) Object.assign(headers, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
          const body = c.method === 'GET' || c.method === 'HEAD' ? undefined : c.body;
          const before = await countRows(gw.db.db);
          const res = await gw.send(c.method, `/trpc/${c.path}`, { host: c.host, headers, body });
          const after = await countRows(gw.db.db);
          seen.add(res.status);
          const what = `${c.method} /trpc/${c.path.slice(0, 80)} (${c.type}, ${c.auth}, ${c.host}) → ${res.status} ${res.text.slice(0, 200)}`;

          // 405 is tRPC's answer to a wrong method (documented for /trpc).
          expectCleanTrpcAnswer(res, what, [405], c.method);
          const d = {
            users: after.users - before.users,
            sessions: after.sessions - before.sessions,
            events: after.events - before.events,
          };
          const ok = res.status < 300;
          const batch = /[,?]/.test(c.path) && c.path.includes('batch=1');
          if (batch) expect(ok, `${what}: batch calls are refused`).toBe(false);
          // "%73" is "s": a percent-encoded name is the same path (RFC 3986), so the same procedure.
          const called = PROCEDURES.find((p) => p === decoded(c.path)) ?? '';
          if (isMutation(called) && ok) {
            expect(c.method, `${what}: a mutation runs only over POST`).toBe('POST');
            expect(c.type ?? '', `${what}: a mutation body must be JSON`).toMatch(/^application\/json/);
          }
          if (!ok) {
            const codes = (res.json?.error?.data?.problem?.errors ?? []).map((e: { code: string }) => e.code);
            const audited =
              res.status === 422 &&
              codes.some((x: string) => x === 'credentials_invalid' || x === 'password_incorrect');
            // Only a failed password check leaves its audit event (validation refusals leave none).
            expect([d.users, d.sessions], what).toEqual([0, 0]);
            expect(audited ? [0, 1] : [0], what).toContain(d.events);
            return;
          }
          if (!called) {
            expect(d, what).toEqual({ users: 0, sessions: 0, events: 0 });
            return;
          }
          // A sign-in or registration ends the session the client presented (the owner's, in the default realm).
          const ended = (c.auth === 'cookie' || c.auth === 'bearer') && c.host === 'localhost' ? 1 : 0;
          if (called === 'account.register') {
            expect(d, what).toEqual({ users: 1, sessions: 1 - ended, events: 1 });
            // What was stored is what was validated: only the documented name mapping (RFC 8266) applies.
            expect(res.json.result.data.user.name, what).toBe(normalizeName(String(JSON.parse(body!.toString()).name)));
          }
          if (called === 'account.signIn') expect(d, what).toEqual({ users: 0, sessions: 1 - ended, events: 1 });
          if (called === 'account.changePassword') {
            expect(d.users, what).toBe(0);
            ownerPassword = String(JSON.parse(body!.toString()).new_password);
          }
          if (QUERIES.includes(called)) expect(d, what).toEqual({ users: 0, sessions: 0, events: 0 });
        },
        RUNS * 3,
      );
      // Every outcome was reached, so the generators get past the first checks.
      expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 401, 403, 404, 405, 413, 415, 422]));
    },
  );

  it('refuses text with lone surrogates (valid JSON, not valid Unicode) instead of storing U+FFFD', async () => {
    const before = await countRows(gw.db.db);
    const body = JSON.stringify(registration(uniqueEmail('surrogate'))).replace('"Test User"', '"Test \\ud800User"');
    const res = await gw.send('POST', '/trpc/account.register', { headers: { 'content-type': JSON_TYPE }, body });
    expect(res.status).toBe(422);
    expect(res.json.error.data.problem.errors).toEqual([
      { field: 'name', code: 'invalid_type', message: expect.any(String) },
    ]);
    const signIn = await gw.send('POST', '/trpc/account.signIn', {
      headers: { 'content-type': JSON_TYPE },
      body: `{"email":"${ownerEmail}","password":"\\udfff"}`,
    });
    expect(signIn.json.error.data.problem.errors).toEqual([
      { field: 'password', code: 'invalid_type', message: expect.any(String) },
    ]);
    expect(await countRows(gw.db.db)).toEqual(before);
  });

  it('refuses batch paths, mutations over GET and mutations sent as text/plain', async () => {
    const json = { 'content-type': JSON_TYPE };
    const input = encodeURIComponent(JSON.stringify({ email: ownerEmail, password: ownerPassword }));
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      ['GET', '/trpc/account.signIn,account.me?batch=1', {}, undefined, 400],
      [
        'POST',
        '/trpc/account.signIn,account.me?batch=1',
        json,
        JSON.stringify({ 0: { email: ownerEmail, password: ownerPassword }, 1: {} }),
        400,
      ],
      ['GET', `/trpc/account.signIn?input=${input}`, {}, undefined, 405],
      [
        'POST',
        '/trpc/account.signIn',
        { 'content-type': 'text/plain' },
        JSON.stringify({ email: ownerEmail, password: ownerPassword }),
        415,
      ],
      // Media types compare case-insensitively: Application/JSON is JSON (protocol-edges.test.ts), Text/Plain is not.
      [
        'POST',
        '/trpc/account.signIn',
        { 'content-type': 'Text/Plain' },
        JSON.stringify({ email: ownerEmail, password: ownerPassword }),
        415,
      ],
      ['POST', '/trpc/account.me', json, '{}', 405],
      ['POST', '/trpc/account.signIn', json, '{"email":', 400],
      ['POST', '/trpc/account.register', json, JSON.stringify(registration(` ${ownerEmail.toUpperCase()}`)), 409],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const before = await countRows(gw.db.db);
      const res = await gw.send(method, path, { headers, body });
      expect({ path, status: res.status }).toEqual({ path, status });
      expectCleanTrpcAnswer(res, `${method} ${path}`, [405]);
      expect(await countRows(gw.db.db)).toEqual(before);
    }
  });
});
