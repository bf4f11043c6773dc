import { testDrivers } from '@accounts/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepUnderSessionCap, mintSession, startFuzzTarget } from '../support/accounts.js';
import { FORM, contentType, formBody, hostileText, jsonBody, nearlyValid, type Pair } from '../support/arbitraries.js';
import { assertProperty, countRows, expectCleanFormAnswer, type RowCounts } from '../support/checks.js';
import { registration, STRONG, STRONG2, uniqueEmail, type Gateway, type Response } from '../support/gateway.js';

// Thousands of generated requests against the form routes: whatever arrives, the answer is a
// documented status with a problem+json body, and a refused request writes nothing.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const ROUTES = {
  '/users/register': ['name', 'email', 'password', 'password2'],
  '/users/change_password': ['current_password', 'new_password', 'confirm_password'],
  '/users/login': ['email', 'password'],
  '/users/logout': [],
} as const;
type Route = keyof typeof ROUTES | 'GET /users/me';

const AUDITED = new Set(['credentials_invalid', 'password_incorrect']);

const auth = fc.constantFrom(
  'none',
  'cookie',
  'bearer',
  'garbage-cookie',
  'garbage-bearer',
  'cookie-and-bearer',
  'many-cookies',
  'duplicate-cookies',
);
const host = fc.constantFrom(
  'localhost',
  'localhost',
  'localhost',
  'localhost',
  'acme.localhost',
  'nope.localhost',
  '127.0.0.1',
);
const origin = fc.constantFrom<'none' | 'own' | 'evil' | 'same-site'>(
  'none',
  'none',
  'none',
  'none',
  'none',
  'none',
  'own',
  'own',
  'evil',
  'same-site',
);

describe.each(testDrivers())('hostile form requests on %s', (driver) => {
  let gw: Gateway;
  let ownerId: string;
  let ownerEmail: string;
  let seen = new Set<number>();
  // The owner's password as it stands; a generated change that succeeds moves it on.
  let ownerPassword = STRONG;
  let drawn = 0;
  const VALID: Record<keyof typeof ROUTES, () => Pair[]> = {
    // Every third registration reuses the owner's address in another spelling (409).
    '/users/register': () =>
      Object.entries(registration(++drawn % 3 ? uniqueEmail('fuzz') : ` ${ownerEmail.toUpperCase()}`)),
    '/users/change_password': () => {
      const next = ownerPassword === STRONG ? STRONG2 : STRONG;
      return [
        ['current_password', ownerPassword],
        ['new_password', next],
        ['confirm_password', next],
      ];
    },
    '/users/login': () => [
      ['email', ownerEmail],
      ['password', ownerPassword],
    ],
    '/users/logout': () => [],
  };

  beforeAll(async () => {
    ({ gw, ownerEmail, ownerId } = await startFuzzTarget(driver));
  });
  afterAll(() => gw?.close());

  async function headersFor(
    kind: string,
    h: string,
    o: string,
    type: string | undefined,
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = { accept: '*/*' };
    if (type !== undefined) headers['content-type'] = type;
    await keepUnderSessionCap(gw.db.db, ownerId);
    const token = ['cookie', 'bearer', 'cookie-and-bearer', 'many-cookies', 'duplicate-cookies'].includes(kind)
      ? await mintSession(gw.db.db, ownerId)
      : '';
    if (kind === 'cookie') headers.cookie = `session=${token}`;
    if (kind === 'bearer') headers.authorization = `Bearer ${token}`;
    if (kind === 'garbage-cookie') headers.cookie = 'session=%ZZ%00; session=; =; ;;';
    if (kind === 'garbage-bearer') headers.authorization = 'Bearer a b c';
    if (kind === 'cookie-and-bearer')
      Object.assign(headers, { cookie: 'session=nope', authorization: `Bearer ${token}` });
    if (kind === 'many-cookies')
      headers.cookie = [...Array.from({ length: 300 }, (_, i) => `c${i}=${i}`), `session=${token}`].join('; ');
    if (kind === 'duplicate-cookies') headers.cookie = `session=${'x'.repeat(43)}; session=${token}`;
    if (o === 'own') headers.origin = `http://${h}:${gw.port}`;
    if (o === 'evil') Object.assign(headers, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
    if (o === 'same-site') headers['sec-fetch-site'] = 'same-site';
    return headers;
  }

  /** Sends one generated request and checks the answer and what it wrote. */
  async function probe(
    route: Route,
    req: { body?: Buffer; type?: string; auth: string; host: string; origin: string },
  ) {
    const headers = await headersFor(req.auth, req.host, req.origin, req.type);
    const before = await countRows(gw.db.db);
    const [method, path] = route === 'GET /users/me' ? ['GET', '/users/me'] : ['POST', route];
    const res = await gw.send(method, path, { host: req.host, headers, body: req.body });
    seen.add(res.status);
    const after = await countRows(gw.db.db);
    const what = `${method} ${path} (${req.type}, ${req.auth}, ${req.host}, ${req.origin}) → ${res.status} ${res.text.slice(0, 160)}`;
    expectCleanFormAnswer(res, what);
    expectWrites(route, res, before, after, what);
    if (route === '/users/change_password' && res.status === 200)
      ownerPassword = String(new URLSearchParams(req.body!.toString()).get('new_password'));
  }

  function expectWrites(route: Route, res: Response, before: RowCounts, after: RowCounts, what: string) {
    const d = {
      users: after.users - before.users,
      sessions: after.sessions - before.sessions,
      events: after.events - before.events,
    };
    if (res.status >= 400) {
      // A refused request stores nothing; only a failed password check leaves its audit event
      // (an over-long current password is refused by validation, before any check, with none).
      const audited = res.status === 422 && (res.json.errors ?? []).some((e: { code: string }) => AUDITED.has(e.code));
      expect([d.users, d.sessions], what).toEqual([0, 0]);
      expect(audited ? [0, 1] : [0], what).toContain(d.events);
      return;
    }
    // A sign-in or registration ends the session the client presented: one new, maybe one gone.
    const newSession = (x: typeof d) => x.sessions === 1 || x.sessions === 0;
    const expected: Record<Route, (x: typeof d) => boolean> = {
      '/users/register': (x) => x.users === 1 && newSession(x) && x.events === 1,
      '/users/login': (x) => x.users === 0 && newSession(x) && x.events === 1,
      '/users/logout': (x) => x.users === 0 && x.sessions <= 0 && x.sessions >= -1,
      '/users/change_password': (x) => x.users === 0 && x.sessions <= 0 && x.events >= 1,
      'GET /users/me': (x) => x.users === 0 && x.sessions === 0 && x.events === 0,
    };
    expect(expected[route](d), `${what}: wrote ${JSON.stringify(d)}`).toBe(true);
    expect(res.text, what).not.toMatch(/password_?hash|\$2[aby]\$|bcrypt/i);
  }

  const request = (route: keyof typeof ROUTES) =>
    fc.record({
      // Mostly the right content type, so the generated bodies reach the parser and validation.
      type: fc.oneof(
        { weight: 3, arbitrary: fc.constant<string | undefined>(FORM) },
        { weight: 2, arbitrary: contentType },
      ),
      body: fc.oneof(
        { weight: 3, arbitrary: formBody(ROUTES[route]) },
        { weight: 4, arbitrary: nearlyValid(VALID[route]) },
        { weight: 1, arbitrary: jsonBody(ROUTES[route]) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.integer({ min: 16 * 1024, max: 64 * 1024 }).map((n) => Buffer.from(`name=${'x'.repeat(n)}`)),
        },
      ),
      auth,
      host,
      origin,
    });

  // The statuses each route must have produced, so a generator that never gets past the
  // first check cannot pass unnoticed.
  const REACHED: Record<Route, number[]> = {
    '/users/register': [201, 400, 403, 404, 409, 413, 415, 422],
    '/users/change_password': [200, 400, 401, 403, 413, 415, 422],
    '/users/login': [200, 400, 403, 413, 415, 422],
    '/users/logout': [200, 400, 403, 404, 415],
    'GET /users/me': [200, 401, 404],
  };

  for (const route of Object.keys(ROUTES) as (keyof typeof ROUTES)[]) {
    it(`POST ${route}: ${RUNS} generated requests`, { timeout: 120_000 }, async () => {
      seen = new Set();
      await assertProperty(request(route), (req) => probe(route, req), RUNS);
      expect([...seen].sort()).toEqual(expect.arrayContaining(REACHED[route]));
    });
  }

  it(`GET /users/me: ${RUNS} generated requests`, { timeout: 120_000 }, async () => {
    const me = fc.record({
      type: contentType,
      body: fc.oneof(
        fc.constant(undefined),
        hostileText.map((s) => Buffer.from(s)),
      ),
      auth,
      host,
      origin,
    });
    seen = new Set();
    await assertProperty(me, (req) => probe('GET /users/me', req), RUNS);
    expect([...seen].sort()).toEqual(expect.arrayContaining(REACHED['GET /users/me']));
  });

  it('logged no internal error while being fuzzed', () => {
    const errors = gw.logs.filter((l) => JSON.parse(l).level >= 50);
    expect(errors.map((l) => JSON.parse(l).msg)).toEqual([]);
  });
});
