import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { sessions, users } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_ROUTES } from '../src/form-routes.js';
import { documentedPath, usersRoutesOf } from '../src/openapi.js';
import { registration, startGateway, STRONG, STRONG2, type Gateway } from './support/gateway.js';
import { expectPostRefusals, openApiOf } from './support/openapi.js';
import { exercisePasskeyRoutes } from './support/passkeys-openapi.js';
import { postJson as sendJson } from './support/passkeys.js';
import { exerciseSecurityRoutes } from './support/security-openapi.js';
import { exerciseAppsRoutes } from './support/apps-openapi.js';
import { exerciseUpstreamRoutes } from './support/upstream-openapi.js';
import { exerciseEmailRoutes } from './support/email-openapi.js';
import { exerciseTwoStepRoutes } from './support/two-step-openapi.js';
import { exerciseAccountDataRoutes } from './support/account-data-openapi.js';
import { exerciseHubRoutes } from './support/hub-openapi.js';

// Every answer below is checked against GET /openapi.json of the same server: its status, media
// type, headers and body. 503s are checked the same way in availability.test.ts.
describe.each(testDrivers())('the OpenAPI document on %s', (driver) => {
  let gw: Gateway;
  let api: Awaited<ReturnType<typeof openApiOf>>;
  let client = 0;
  // Each request comes from its own address unless a test says otherwise, so limits apply only where meant.
  const from = (ip = `198.51.100.${++client % 250}`) => ({ 'x-forwarded-for': ip });
  beforeAll(async () => {
    gw = await startGateway(driver, {
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_REGISTER: '6',
      RATE_LIMIT_SIGN_IN: '6',
      RATE_LIMIT_CHANGE_PASSWORD: '6',
      RATE_LIMIT_FORGOT_PASSWORD: '6',
      RATE_LIMIT_RESEND_VERIFICATION: '6',
      RATE_LIMIT_ACCOUNT_WRITES: '20',
      RATE_LIMIT_PASSKEY_OPTIONS: '6',
      RATE_LIMIT_LINK_CHECK: '6',
      RATE_LIMIT_MAIL_PER_EMAIL: '1000',
      MAIL_RECIPIENT_CAP: '1000',
      MAIL_POLL_MS: '0',
    });
    api = await openApiOf(gw);
  });
  afterAll(() => gw.close());

  const post = async (
    url: string,
    body: string | Record<string, string>,
    headers: Record<string, string> = {},
    host?: string,
  ) => {
    const res = await gw.form(url, body, { headers: { ...from(), ...headers }, host });
    api.check('POST', url, res);
    return res;
  };
  /** A JSON body (the passkey routes), a value or raw text, held to the document like `post`. */
  const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}, host?: string) => {
    const res = await sendJson(gw, url, body, { ...from(), ...headers }, host);
    api.check('POST', url, res);
    return res;
  };
  const get = async (url: string, headers: Record<string, string> = {}, host?: string) => {
    const res = await gw.send('GET', url, { headers, host });
    api.check('GET', url.split('?')[0]!, res);
    return res;
  };
  const signedUp = async () => {
    const email = uniqueEmail('doc');
    const res = await post('/users/register', registration(email));
    expect(res.status).toBe(201);
    return { email, cookie: res.cookie! };
  };

  it('documents every /users/* route the server has, and only those', () => {
    const registered = usersRoutesOf(gw.app)
      .map((r) => `${r.method} ${documentedPath(r.url)}`)
      .sort();
    const documented = Object.entries(api.doc.paths)
      .flatMap(([url, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${url}`))
      .sort();
    expect(registered.length).toBeGreaterThanOrEqual(FORM_ROUTES.length);
    expect(documented).toEqual(registered);
  });

  it('describes every time as the date-time string JSON carries', () => {
    const body = (path: string, method: string, status: string) =>
      api.doc.paths[path]![method]!.responses[status]!.content!['application/json']!.schema;
    // The node at the end of a walk down a schema; a step that is not there fails the test (a TypeError).
    const at = (schema: unknown, ...keys: string[]) =>
      keys.reduce((node, key) => (node as Record<string, unknown>)[key], schema);
    const dateTime = { type: 'string', format: 'date-time' };
    expect(at(body('/users/login', 'post', '200'), 'properties', 'session', 'properties', 'expiresAt')).toEqual(
      dateTime,
    );
    const session = at(body('/users/sessions', 'get', '200'), 'properties', 'sessions', 'items', 'properties');
    expect([at(session, 'createdAt'), at(session, 'lastUsedAt')]).toEqual([dateTime, dateTime]);
    expect(at(body('/users/activity', 'get', '200'), 'properties', 'events', 'items', 'properties', 'at')).toEqual(
      dateTime,
    );
  });

  it('describes the flags a page reads: a sign-in from a new device, a sign-in completed with a recovery code', () => {
    const body = (path: string, method: string) =>
      api.doc.paths[path]![method]!.responses['200']!.content!['application/json']!.schema as {
        properties: Record<
          string,
          { properties?: Record<string, unknown>; items?: { properties: Record<string, unknown>; required?: string[] } }
        >;
        required?: string[];
      };
    const event = body('/users/activity', 'get').properties.events!.items!;
    expect(event.properties.newDevice).toMatchObject({ type: 'boolean', const: true });
    expect(event.required).not.toContain('newDevice');
    const secondStep = body('/users/login/second_factor', 'post');
    expect(secondStep.properties.recoveryCodeUsed).toMatchObject({ type: 'boolean', const: true });
    expect(secondStep.required).not.toContain('recoveryCodeUsed');
    // Only the second step says it.
    expect(body('/users/login', 'post').properties).not.toHaveProperty('recoveryCodeUsed');
  });

  it('describes the success bodies, with and without the token in the body', async () => {
    const { email, cookie } = await signedUp();
    const withToken = await post('/users/login', { email, password: STRONG }, { 'x-session-delivery': 'token' });
    expect(withToken.json.session.token).toBeTruthy();
    expect((await get('/users/me', { authorization: `Bearer ${withToken.json.session.token}` })).status).toBe(200);
    expect((await get('/users/me', { cookie })).status).toBe(200);
    const changed = await post(
      '/users/change_password',
      { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      { cookie, 'x-session-delivery': 'token' },
    );
    expect(changed.status).toBe(200);
    expect((await post('/users/logout', '', { authorization: `Bearer ${changed.json.session.token}` })).status).toBe(
      200,
    );
    expect(
      (await post('/users/register', registration(), { 'x-session-delivery': 'token' })).json.session,
    ).toBeDefined();
  });

  it('describes the refusals every form route shares', async () => {
    const { cookie } = await signedUp();
    const bodies: Record<string, Record<string, string>> = {
      '/users/register': registration(),
      '/users/login': { email: uniqueEmail(), password: STRONG },
      '/users/change_password': { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      '/users/logout': {},
    };
    await expectPostRefusals(post, bodies, { cookie });
    expect((await get('/users/me', {}, 'nope.localhost')).json.code).toBe('realm_not_found');
  });

  it('describes the refusals of each route', async () => {
    const { email, cookie } = await signedUp();
    // Field errors and conflicts.
    expect(
      (await post('/users/register', { name: '', email: 'nope', password: 'short', password2: 'x' })).json.code,
    ).toBe('validation_failed');
    expect((await post('/users/register', registration(email))).json.code).toBe('email_taken');
    expect((await post('/users/login', { email: 'nope', password: '' })).json.code).toBe('validation_failed');
    expect(
      (
        await post(
          '/users/change_password',
          { current_password: STRONG, new_password: 'short', confirm_password: 'short' },
          { cookie },
        )
      ).json.code,
    ).toBe('validation_failed');
    expect(
      (
        await post('/users/change_password', {
          current_password: STRONG,
          new_password: STRONG2,
          confirm_password: STRONG2,
        })
      ).json.code,
    ).toBe('unauthenticated');
    expect((await get('/users/me')).json.code).toBe('unauthenticated');
    // Per-address limits: seven calls from one address where six are allowed.
    for (const [url, fields] of [
      ['/users/register', () => registration()],
      ['/users/login', () => ({ email: uniqueEmail(), password: 'not the password' })],
      [
        '/users/change_password',
        () => ({ current_password: 'not the password', new_password: STRONG2, confirm_password: STRONG2 }),
      ],
    ] as const) {
      const answers = [];
      for (let i = 0; i < 7; i++)
        answers.push(await post(url, fields(), { cookie: (await signedUp()).cookie, ...from('203.0.113.77') }));
      expect(answers.at(-1)!.json.code, url).toBe('rate_limited');
    }
    // The lockout counts per account and client: one address's guesses, then a session's own
    // wrong current passwords.
    const guesser = from('203.0.113.99');
    for (let i = 0; i < 5; i++)
      expect((await post('/users/login', { email, password: `wrong ${i}` }, guesser)).status).toBe(422);
    expect((await post('/users/login', { email, password: STRONG }, guesser)).json.code).toBe('too_many_attempts');
    const session = { cookie, ...from('203.0.113.98') };
    for (let i = 0; i < 5; i++)
      expect(
        (
          await post(
            '/users/change_password',
            { current_password: `wrong ${i} of this session`, new_password: STRONG2, confirm_password: STRONG2 },
            session,
          )
        ).status,
      ).toBe(422);
    expect(
      (
        await post(
          '/users/change_password',
          { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
          session,
        )
      ).json.code,
    ).toBe('too_many_attempts');
  });

  it('describes the refusal of a Host that is not host[:port] on every route', async () => {
    // The client adds the port: "localhost:abc" goes out as "localhost:abc:<port>".
    for (const route of FORM_ROUTES) {
      const url = route.url.replace(':provider', 'none');
      const res =
        route.method === 'POST' ? await post(url, {}, {}, 'localhost:abc') : await get(url, {}, 'localhost:abc');
      expect({ route: route.url, status: res.status, code: res.json.code }).toEqual({
        route: route.url,
        status: 400,
        code: 'invalid_host',
      });
    }
  });

  it('describes the answers of the security page routes', () => exerciseSecurityRoutes({ post, get, signedUp }));

  it('describes the answers of the apps routes', () => exerciseAppsRoutes({ post, get, db: gw.db.db, signedUp }));

  it('describes the answers of the upstream sign-in and connected-accounts routes', () =>
    exerciseUpstreamRoutes({ post, get, db: gw.db.db, signedUp }));

  it('describes the answers of the mailed-link routes', () => exerciseEmailRoutes({ post, db: gw.db.db, signedUp }));

  it('describes the answers of the two-step routes', () => exerciseTwoStepRoutes({ post, get, signedUp }));

  it("describes the account page's data in GET /users/me and the answers of dismissing its suggestion", () =>
    exerciseHubRoutes({ post, get, signedUp, doc: api.doc }));

  it('describes the answers of the change-of-address and data-export routes', () =>
    exerciseAccountDataRoutes({ post, get, db: gw.db.db, signedUp }));

  it('describes the copy of the data as docs/account-export.schema.json, a POST only', () => {
    const { $schema, $id, title, ...committed } = JSON.parse(
      readFileSync(new URL('../../../docs/account-export.schema.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    expect([$schema, $id, title].every(Boolean)).toBe(true);
    expect(Object.keys(api.doc.paths['/users/export']!)).toEqual(['post']);
    expect(api.doc.paths['/users/export']!.post!.responses['200']!.content!['application/json']!.schema).toEqual(
      committed,
    );
  });

  it('describes the download header of the copy (Content-Disposition)', () => {
    expect(Object.keys(api.doc.paths['/users/export']!.post!.responses['200']!.headers ?? {})).toEqual([
      'Content-Disposition',
    ]);
  });

  it('describes the 422 of POST /users/export without the password, for a session that has not proved it in five minutes', async () => {
    const { email, cookie } = await signedUp();
    const [user] = await gw.db.db.select().from(users).where(eq(users.email, email));
    await gw.db.db
      .update(sessions)
      .set({ passwordCheckedAt: sql`now() - interval '6 minutes'` })
      .where(eq(sessions.userId, user!.id));
    const res = await post('/users/export', {}, { cookie });
    expect(res.json).toMatchObject({
      status: 422,
      errors: [{ field: 'current_password', code: 'password_recheck_required' }],
    });
  });

  it('describes the answers of the passkey routes', () => exercisePasskeyRoutes({ post, postJson, get, signedUp }));

  it('describes the passkey routes: JSON request bodies, the WebAuthn structures, their own 415', () => {
    type Op = {
      requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
      responses: Record<
        string,
        { content: Record<string, { schema: { properties: Record<string, { enum?: string[] }> } }> }
      >;
      security: object[];
    };
    const op = (path: string, method = 'post') => api.doc.paths[path]![method] as unknown as Op;
    const passkeyPosts = Object.keys(api.doc.paths).filter((p) => p.startsWith('/users/passkeys/'));
    expect(passkeyPosts.sort()).toEqual(
      [
        '/users/passkeys/login',
        '/users/passkeys/login/options',
        '/users/passkeys/recheck',
        '/users/passkeys/recheck/options',
        '/users/passkeys/register',
        '/users/passkeys/register/options',
        '/users/passkeys/remove',
        '/users/passkeys/rename',
        '/users/passkeys/second_factor',
        '/users/passkeys/second_factor/options',
      ].sort(),
    );
    for (const path of passkeyPosts) {
      const { requestBody, responses } = op(path);
      expect(Object.keys(requestBody!.content), path).toEqual(['application/json']);
      expect(responses['415']!.content['application/problem+json']!.schema.properties.code!.enum, path).toEqual([
        'unsupported_media_type_json',
      ]);
    }
    // The form routes keep their form bodies and their 415.
    expect(Object.keys(op('/users/login').requestBody!.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(
      op('/users/login').responses['415']!.content['application/problem+json']!.schema.properties.code!.enum,
    ).toEqual(['unsupported_media_type']);
    // The WebAuthn answers: PublicKeyCredential.toJSON() of a registration and of an assertion.
    type Obj = { type?: string; properties: Record<string, Obj>; required?: string[] };
    const body = (path: string) => op(path).requestBody!.content['application/json']!.schema as unknown as Obj;
    const registration = body('/users/passkeys/register');
    expect(registration.required).toEqual(['response']);
    expect(Object.keys(registration.properties).sort()).toEqual(['name', 'response']);
    expect(registration.properties.response!.required).toEqual(
      expect.arrayContaining(['id', 'rawId', 'type', 'response']),
    );
    expect(registration.properties.response!.properties.response!.required).toEqual(
      expect.arrayContaining(['clientDataJSON', 'attestationObject']),
    );
    const assertion = body('/users/passkeys/login').properties.response!;
    expect(assertion.properties.response!.required).toEqual(
      expect.arrayContaining(['clientDataJSON', 'authenticatorData', 'signature']),
    );
    expect(Object.keys(body('/users/passkeys/second_factor').properties).sort()).toEqual(['pending_token', 'response']);
    expect(body('/users/passkeys/remove').required?.sort()).toEqual(['current_password', 'passkey_id']);
    // Removing the last factor, and asking to add one, take a second-step code when asked for it.
    expect(Object.keys(body('/users/passkeys/remove').properties).sort()).toEqual([
      'code',
      'current_password',
      'passkey_id',
    ]);
    expect(Object.keys(body('/users/passkeys/register/options').properties).sort()).toEqual([
      'code',
      'current_password',
    ]);
    expect(Object.keys(body('/users/passkeys/recheck').properties)).toEqual(['response']);
    // Which need a session: the account's own; the sign-in and its second step do not.
    for (const path of [
      '/users/passkeys/register/options',
      '/users/passkeys/register',
      '/users/passkeys/rename',
      '/users/passkeys/remove',
      '/users/passkeys/recheck/options',
      '/users/passkeys/recheck',
    ])
      expect(op(path).security.length, path).toBeGreaterThan(0);
    expect(op('/users/passkeys', 'get').security.length).toBeGreaterThan(0);
    for (const path of [
      '/users/passkeys/login/options',
      '/users/passkeys/login',
      '/users/passkeys/second_factor/options',
      '/users/passkeys/second_factor',
    ])
      expect(op(path).security, path).toEqual([]);
    // The problems of each ceremony.
    const codes = (path: string, status: string) =>
      op(path).responses[status]!.content['application/problem+json']!.schema.properties.code!.enum;
    expect(codes('/users/passkeys/login', '422')!.sort()).toEqual(['passkey_rejected', 'validation_failed']);
    expect(codes('/users/passkeys/login', '429')!.sort()).toEqual(['rate_limited', 'too_many_attempts']);
    expect(codes('/users/passkeys/register', '400')).toEqual(expect.arrayContaining(['passkey_challenge_invalid']));
    expect(codes('/users/passkeys/second_factor', '401')).toEqual(['sign_in_expired']);
    expect(codes('/users/passkeys/second_factor/options', '401')).toEqual(['sign_in_expired']);
  });

  it('does not document duplicate_field on the JSON routes: JSON has no repeated fields', () => {
    type Op = {
      responses: Record<
        string,
        { content: Record<string, { schema: { properties: Record<string, { enum?: string[] }> } }> }
      >;
    };
    for (const route of FORM_ROUTES.filter((r) => r.body === 'json')) {
      const op = api.doc.paths[documentedPath(route.url)]![route.method.toLowerCase()] as unknown as Op;
      expect(
        op.responses['400']!.content['application/problem+json']!.schema.properties.code!.enum,
        route.url,
      ).not.toContain('duplicate_field');
    }
  });

  it('describes the second step of a sign-in: its problems carry the methods and the pending token', () => {
    type Schema = { properties: Record<string, { enum?: string[]; items?: { enum?: string[] } }> };
    const problem = (path: string, status: string) =>
      api.doc.paths[path]!.post!.responses[status]!.content!['application/problem+json']!.schema as Schema;
    const asked = problem('/users/login', '401');
    expect(asked.properties.code!.enum).toEqual(['second_factor_required']);
    expect(asked.properties.methods!.items!.enum).toEqual(['passkey', 'totp', 'recovery_code']);
    expect(asked.properties.pendingToken).toEqual({ type: 'string' });
    expect(problem('/users/login/second_factor', '401').properties.code!.enum).toEqual(['sign_in_expired']);
    expect(problem('/users/totp/setup', '409').properties.code!.enum).toEqual(['two_step_on']);
    expect(problem('/users/totp/enable', '409').properties.code!.enum).toEqual(['two_step_on', 'totp_not_set_up']);
    expect(problem('/users/totp/disable', '409').properties.code!.enum).toEqual(['totp_off']);
    expect(problem('/users/recovery_codes', '409').properties.code!.enum).toEqual(['two_step_off']);
    for (const path of ['/users/totp/setup', '/users/totp/enable', '/users/totp/disable', '/users/recovery_codes'])
      expect(problem(path, '401').properties.code!.enum, path).toEqual(['unauthenticated']);
    // The pending sign-in: set on the 401 of the password step, read by the second step.
    const login = api.doc.paths['/users/login']!.post!;
    expect(Object.keys(login.responses['401']!.headers ?? {})).toEqual(['Set-Cookie']);
    expect(login.responses['422']!.headers).toBeUndefined();
    const second = api.doc.paths['/users/login/second_factor']!.post! as unknown as {
      parameters: { name: string; in: string }[];
    };
    expect(second.parameters.map((p) => `${p.in} ${p.name}`)).toEqual([
      'header x-session-delivery',
      'cookie pending_sign_in',
    ]);
    // The same for the second step done with a passkey, and for its options (which read the pending cookie too).
    const parameters = (path: string) =>
      (api.doc.paths[path]!.post! as unknown as { parameters: { name: string; in: string }[] }).parameters.map(
        (p) => `${p.in} ${p.name}`,
      );
    expect(parameters('/users/passkeys/second_factor')).toEqual([
      'header x-session-delivery',
      'cookie pending_sign_in',
    ]);
    expect(parameters('/users/passkeys/second_factor/options')).toEqual(['cookie pending_sign_in']);
  });

  it('had every documented status of every route answered (503s in availability.test.ts)', () => {
    const serviceUnavailable = Object.fromEntries(
      FORM_ROUTES.map((r) => [`${r.method} ${documentedPath(r.url)}`, [503]]),
    );
    expect(api.unchecked(serviceUnavailable), JSON.stringify(api.unchecked(serviceUnavailable))).toEqual([]);
  });
});
