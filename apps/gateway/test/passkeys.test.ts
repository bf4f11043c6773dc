import { setRequireVerifiedEmail } from '@accounts/api';
import { sessions, webauthnChallenges } from '@accounts/db';
import { SoftAuthenticator, testDrivers } from '@accounts/testing';
import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFormAnswer } from './support/checks.js';
import { registration, startGateway, STRONG, uniqueEmail, type Gateway } from './support/gateway.js';
import {
  addPasskey,
  originOf,
  passkeySignIn,
  postJson,
  signInAssertion,
  type AssertionOptions,
} from './support/passkeys.js';
import { pendingCookieOf, setCookieNamed, setCookies, turnOnTwoStep } from './support/two-step.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;

// Passkeys over real HTTP, with JSON bodies and the software authenticator of @accounts/testing
// (written from the WebAuthn and CTAP2 specifications, independent of the service's library):
// adding one, signing in with it alone (browser and program), the second step of a password
// sign-in done with it, the ceremonies' rules (challenges, origin, RP ID, counter, realms), the
// lockout, hostile JSON, the password recheck, removing it.
describe.each(testDrivers())('passkeys over HTTP on %s', (driver) => {
  let gw: Gateway;
  let client = 0;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  /** Headers from an address of this test's own, so the lockout of one test never reaches another. */
  const fromNewAddress = () => ({ 'x-forwarded-for': `203.0.113.${++client % 250}` });
  const json = (url: string, body: unknown, headers: Record<string, string> = {}, host?: string) =>
    postJson(gw, url, body, headers, host);
  const login = (email: string, headers: Record<string, string> = {}, host?: string) =>
    gw.form('/users/login', { email, password: STRONG }, { headers, host });
  const me = (headers: Record<string, string>, host?: string) => gw.send('GET', '/users/me', { headers, host });
  const activity = async (headers: Record<string, string>, host?: string) =>
    ((await gw.send('GET', '/users/activity', { headers, host })).json.events as { type: string }[]).map((e) => e.type);
  const rejected = { status: 422, code: 'passkey_rejected' };
  const challengeInvalid = { status: 400, code: 'passkey_challenge_invalid' };

  /** A registered, signed-in account (its password proved just now). */
  async function signedUp(host?: string) {
    const email = uniqueEmail('passkey');
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(email), { headers: address, host });
    expect(reg.status).toBe(201);
    return { email, session: { ...address, cookie: reg.cookie! } };
  }

  /** A signed-in account with a passkey. */
  async function withPasskey(opts: { host?: string; authenticator?: SoftAuthenticator } = {}) {
    const account = await signedUp(opts.host);
    const added = await addPasskey(gw, account.session, opts);
    return { ...account, ...added };
  }

  it('adds a passkey with JSON bodies: options for a discoverable credential of the realm, listed, and the first one turns two-step on with recovery codes', async () => {
    const { email, session } = await signedUp();
    const options = await json('/users/passkeys/register/options', {}, session);
    expect(options.status).toBe(200);
    expect(options.headers['content-type']).toMatch(/^application\/json/);
    expect(options.headers['cache-control']).toBe('no-store');
    expect(options.json).toMatchObject({
      challenge: expect.stringMatching(B64URL),
      rp: { id: 'localhost', name: 'Accounts' },
      user: { id: expect.stringMatching(B64URL), name: email, displayName: 'Test User' },
      pubKeyCredParams: expect.arrayContaining([{ type: 'public-key', alg: -7 }]),
      timeout: 300_000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    // The user handle: random (32 bytes), never the email, and the same for the account each time.
    const handle = options.json.user.id as string;
    expect(Buffer.from(handle, 'base64url')).toHaveLength(32);
    expect(Buffer.from(handle, 'base64url').toString('latin1')).not.toContain(email);

    const authenticator = new SoftAuthenticator({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd' });
    const added = await json(
      '/users/passkeys/register',
      { response: authenticator.create(options.json, originOf()) },
      session,
    );
    expect(added.status).toBe(201);
    expect(added.json.passkey).toEqual({
      id: expect.any(String),
      name: 'iCloud Keychain',
      kind: 'iCloud Keychain',
      synced: false,
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    const codes = added.json.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect((await me(session)).json.twoStep).toEqual({
      enabled: true,
      methods: ['passkey', 'recovery_code'],
      recoveryCodesLeft: 10,
    });
    expect(await activity(session)).toContain('passkey_added');

    // A second one: named by the caller, no new codes; the options exclude the first, with the same handle.
    const again = await json('/users/passkeys/register/options', {}, session);
    expect(again.json.user.id).toBe(handle);
    expect(again.json.challenge).not.toBe(options.json.challenge);
    expect(again.json.excludeCredentials).toEqual([
      expect.objectContaining({ id: authenticator.credentials[0]!.id.toString('base64url'), type: 'public-key' }),
    ]);
    const second = await json(
      '/users/passkeys/register',
      { response: new SoftAuthenticator().create(again.json, originOf()), name: 'Laptop' },
      session,
    );
    expect(second.status).toBe(201);
    expect(second.json.recoveryCodes).toBeUndefined();
    expect(second.json.passkey).toMatchObject({ name: 'Laptop', kind: null });
    // Renamed; an unknown id or one that is not a passkey id is 404.
    expect(
      (await json('/users/passkeys/rename', { passkey_id: second.json.passkey.id, name: 'Work laptop' }, session)).json,
    ).toEqual({ ok: true });
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-an-id'])
      expect((await json('/users/passkeys/rename', { passkey_id: id, name: 'x' }, session)).json).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    const list = await gw.send('GET', '/users/passkeys', { headers: session });
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.json.passkeys.map((p: { name: string }) => p.name)).toEqual(['iCloud Keychain', 'Work laptop']);
    // Another account's handle is another one, and its passkeys are not found from here.
    const other = await signedUp();
    const theirs = await json('/users/passkeys/register/options', {}, other.session);
    expect(theirs.json.user.id).not.toBe(handle);
    expect(
      (await json('/users/passkeys/rename', { passkey_id: second.json.passkey.id, name: 'Mine' }, other.session)).json
        .code,
    ).toBe('not_found');
    expect((await gw.send('GET', '/users/passkeys', { headers: other.session })).json).toEqual({ passkeys: [] });
    // Without a session: 401.
    expect((await gw.send('GET', '/users/passkeys')).json.code).toBe('unauthenticated');
    expect((await json('/users/passkeys/register/options', {}, fromNewAddress())).json.code).toBe('unauthenticated');
  });

  it('signs in with the passkey alone: a browser gets the session and known-device cookies, a program the tokens', async () => {
    const { email, authenticator } = await withPasskey();
    const browser = fromNewAddress();
    const { options, res } = await passkeySignIn(gw, authenticator, { headers: browser });
    // Any discoverable credential of the realm, verified by the person.
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required', timeout: 300_000 });
    expect(options.allowCredentials ?? []).toEqual([]);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json).toEqual({ user: expect.objectContaining({ email, realm: 'default' }) });
    expect(setCookieNamed(res, 'session')).toMatch(/^session=[A-Za-z0-9_-]{43};.*HttpOnly; SameSite=Lax$/);
    expect(setCookieNamed(res, 'known_device')).toMatch(/HttpOnly; SameSite=Strict$/);
    const cookie = { ...browser, cookie: res.cookie! };
    expect((await me(cookie)).json.user.email).toBe(email);
    const [listed] = (await gw.send('GET', '/users/passkeys', { headers: cookie })).json.passkeys;
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await activity(cookie)).toContain('signed_in');

    const program = { ...fromNewAddress(), 'x-session-delivery': 'token' };
    const token = (await passkeySignIn(gw, authenticator, { headers: program })).res;
    expect(token.status).toBe(200);
    expect(token.headers['set-cookie']).toBeUndefined();
    expect(token.json).toMatchObject({
      user: { email },
      session: { token: expect.stringMatching(TOKEN), expiresAt: expect.any(String) },
      knownDevice: expect.stringMatching(TOKEN),
    });
    expect((await me({ authorization: `Bearer ${token.json.session.token}` })).json.user.email).toBe(email);
  });

  it('asks a password sign-in for the second step with passkey among the methods; the passkey completes it, for a browser and a program', async () => {
    const { email, authenticator, recoveryCodes } = await withPasskey();
    const browser = fromNewAddress();
    const asked = await login(email, browser);
    expect(asked.status).toBe(401);
    expect(asked.json).toMatchObject({ code: 'second_factor_required', methods: ['passkey', 'recovery_code'] });
    expect(asked.cookie).toBeUndefined();
    const pending = { ...browser, cookie: pendingCookieOf(asked)! };
    const options = await json('/users/passkeys/second_factor/options', {}, pending);
    expect(options.status).toBe(200);
    // The account's own passkeys, user verification preferred.
    expect(options.json).toMatchObject({
      rpId: 'localhost',
      userVerification: 'preferred',
      allowCredentials: [
        expect.objectContaining({ id: authenticator.credentials[0]!.id.toString('base64url'), type: 'public-key' }),
      ],
    });
    const done = await json(
      '/users/passkeys/second_factor',
      { response: authenticator.get(options.json, originOf()) },
      pending,
    );
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ user: expect.objectContaining({ email }) });
    expect(setCookieNamed(done, 'session')).toMatch(/^session=[A-Za-z0-9_-]{43};/);
    expect(setCookieNamed(done, 'known_device')).toBeDefined();
    expect(setCookieNamed(done, 'pending_sign_in')).toMatch(/^pending_sign_in=; Max-Age=0;/);
    expect((await me({ cookie: done.cookie! })).json.user.email).toBe(email);
    // Used up: options and the step itself for that pending sign-in are 401 sign_in_expired.
    expect((await json('/users/passkeys/second_factor/options', {}, pending)).json).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });

    const program = { ...fromNewAddress(), 'x-session-delivery': 'token' };
    const tokenAsked = await login(email, program);
    expect(tokenAsked.json).toMatchObject({ code: 'second_factor_required', methods: ['passkey', 'recovery_code'] });
    expect(tokenAsked.headers['set-cookie']).toBeUndefined();
    const pending_token = tokenAsked.json.pendingToken as string;
    expect(pending_token).toMatch(TOKEN);
    const tokenOptions = await json('/users/passkeys/second_factor/options', { pending_token }, program);
    expect(tokenOptions.status).toBe(200);
    const tokenDone = await json(
      '/users/passkeys/second_factor',
      { response: authenticator.get(tokenOptions.json, originOf()), pending_token },
      program,
    );
    expect(tokenDone.status).toBe(200);
    expect(tokenDone.headers['set-cookie']).toBeUndefined();
    expect(tokenDone.json).toMatchObject({
      user: { email },
      session: { token: expect.stringMatching(TOKEN) },
      knownDevice: expect.stringMatching(TOKEN),
    });
    // No pending sign-in at all, or one that is not a token: 401 sign_in_expired.
    expect((await json('/users/passkeys/second_factor/options', {}, fromNewAddress())).json.code).toBe(
      'sign_in_expired',
    );
    expect(
      (await json('/users/passkeys/second_factor/options', { pending_token: 'nope' }, fromNewAddress())).json.code,
    ).toBe('sign_in_expired');
    expect(
      (
        await json(
          '/users/passkeys/second_factor',
          { response: authenticator.get(tokenOptions.json, originOf()), pending_token },
          program,
        )
      ).json.code,
    ).toBe('sign_in_expired');
    // The recovery codes the first passkey came with do the second step too, at /users/login/second_factor.
    const third = fromNewAddress();
    const byCode = await login(email, third);
    const done3 = await gw.form(
      '/users/login/second_factor',
      { code: recoveryCodes![0]! },
      { headers: { ...third, cookie: pendingCookieOf(byCode)! } },
    );
    expect(done3.status).toBe(200);
  });

  it('requires user verification to sign in with a passkey alone, not for the second step', async () => {
    const { email, authenticator } = await withPasskey({
      authenticator: new SoftAuthenticator({ userVerified: false }),
    });
    expect((await passkeySignIn(gw, authenticator, { headers: fromNewAddress() })).res.json).toMatchObject(rejected);
    const address = fromNewAddress();
    const pending = { ...address, cookie: pendingCookieOf(await login(email, address))! };
    const options = (await json('/users/passkeys/second_factor/options', {}, pending)).json;
    expect(
      (await json('/users/passkeys/second_factor', { response: authenticator.get(options, originOf()) }, pending))
        .status,
    ).toBe(200);
  });

  it('refuses a replayed challenge and an expired one with 400 passkey_challenge_invalid', async () => {
    const { authenticator, session } = await withPasskey();
    const address = fromNewAddress();
    const first = await passkeySignIn(gw, authenticator, { headers: address });
    expect(first.res.status).toBe(200);
    // The same answer again: its challenge is used up.
    expect((await json('/users/passkeys/login', { response: first.response }, address)).json).toMatchObject(
      challengeInvalid,
    );
    // A challenge older than 5 minutes (its row aged in the database).
    const { options, response } = await signInAssertion(gw, authenticator, { headers: address });
    await gw.db.db
      .update(webauthnChallenges)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(webauthnChallenges.challenge, options.challenge));
    expect((await json('/users/passkeys/login', { response }, address)).json).toMatchObject(challengeInvalid);
    // A challenge the service never gave.
    const made = authenticator.get({ challenge: 'bm90LWEtY2hhbGxlbmdl', rpId: 'localhost' }, originOf());
    expect((await json('/users/passkeys/login', { response: made }, address)).json).toMatchObject(challengeInvalid);

    // Registration: a replayed answer, and an expired challenge.
    const opts = (await json('/users/passkeys/register/options', {}, session)).json;
    const made2 = new SoftAuthenticator().create(opts, originOf());
    expect((await json('/users/passkeys/register', { response: made2 }, session)).status).toBe(201);
    expect((await json('/users/passkeys/register', { response: made2 }, session)).json).toMatchObject(challengeInvalid);
    const late = (await json('/users/passkeys/register/options', {}, session)).json;
    await gw.db.db
      .update(webauthnChallenges)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(webauthnChallenges.challenge, late.challenge));
    expect(
      (await json('/users/passkeys/register', { response: new SoftAuthenticator().create(late, originOf()) }, session))
        .json,
    ).toMatchObject(challengeInvalid);
    // A sign-in's challenge is not a registration's (bound to the ceremony).
    const signInOptions = (await json('/users/passkeys/login/options', {}, address)).json;
    expect(
      (
        await json(
          '/users/passkeys/register',
          { response: new SoftAuthenticator().create({ ...late, challenge: signInOptions.challenge }, originOf()) },
          session,
        )
      ).json,
    ).toMatchObject(challengeInvalid);
    // Nothing was added by the refused ones.
    expect((await gw.send('GET', '/users/passkeys', { headers: session })).json.passkeys).toHaveLength(2);
  });

  it('at the second step too, a replayed or expired challenge is 400 passkey_challenge_invalid, not counted as a failure', async () => {
    const { authenticator, email } = await withPasskey();
    const address = fromNewAddress();
    const pendingOf = async () => ({ ...address, cookie: pendingCookieOf(await login(email, address))! });
    const first = await pendingOf();
    const options = (await json('/users/passkeys/second_factor/options', {}, first)).json;
    const response = authenticator.get(options, originOf());
    expect((await json('/users/passkeys/second_factor', { response }, first)).status).toBe(200);
    const answers: { what: string; status: number; code: string }[] = [];
    // The same answer for a new pending sign-in of the account: its challenge is used up.
    const second = await pendingOf();
    for (let i = 0; i < 5; i++) {
      const res = await json('/users/passkeys/second_factor', { response }, second);
      answers.push({ what: `replayed ${i}`, status: res.status, code: res.json.code });
    }
    // An expired challenge.
    const late = (await json('/users/passkeys/second_factor/options', {}, second)).json;
    await gw.db.db
      .update(webauthnChallenges)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(webauthnChallenges.challenge, late.challenge));
    const expired = await json(
      '/users/passkeys/second_factor',
      { response: authenticator.get(late, originOf()) },
      second,
    );
    answers.push({ what: 'expired', status: expired.status, code: expired.json.code });
    expect(answers).toEqual(answers.map(({ what }) => ({ what, ...challengeInvalid })));
    // None of them counted: the pending sign-in stands, and the passkey completes it.
    const fresh = (await json('/users/passkeys/second_factor/options', {}, second)).json;
    expect(
      (await json('/users/passkeys/second_factor', { response: authenticator.get(fresh, originOf()) }, second)).status,
    ).toBe(200);
  });

  it('refuses another origin and another RP ID with 422 passkey_rejected, at sign-in, registration and the second step', async () => {
    const { authenticator, session, email } = await withPasskey();
    const address = fromNewAddress();
    for (const make of [
      (o: AssertionOptions) => authenticator.get(o, 'http://evil.example:3000'),
      (o: AssertionOptions) => authenticator.get(o, 'https://localhost:3000'),
      (o: AssertionOptions) => authenticator.get(o, 'http://localhost:3001'),
      (o: AssertionOptions) => authenticator.get(o, originOf('acme.localhost')),
      (o: AssertionOptions) => authenticator.get(o, originOf(), { rpId: 'evil.example' }),
      (o: AssertionOptions) => authenticator.get(o, originOf(), { rpId: 'acme.localhost' }),
    ]) {
      const { res } = await passkeySignIn(gw, authenticator, { headers: address, make });
      expect(res.json).toMatchObject(rejected);
      address['x-forwarded-for'] = fromNewAddress()['x-forwarded-for'];
    }
    // Registration with another origin or RP ID adds nothing.
    for (const [origin, rpId] of [
      ['http://evil.example:3000', undefined],
      [originOf(), 'evil.example'],
    ] as const) {
      const opts = (await json('/users/passkeys/register/options', {}, session)).json;
      expect(
        (
          await json(
            '/users/passkeys/register',
            { response: new SoftAuthenticator().create(opts, origin, rpId ? { rpId } : {}) },
            session,
          )
        ).json,
      ).toMatchObject(rejected);
    }
    expect((await gw.send('GET', '/users/passkeys', { headers: session })).json.passkeys).toHaveLength(1);
    // The second step: another origin is refused, and the pending sign-in stands for the right answer.
    const browser = fromNewAddress();
    const pending = { ...browser, cookie: pendingCookieOf(await login(email, browser))! };
    const wrong = (await json('/users/passkeys/second_factor/options', {}, pending)).json;
    expect(
      (
        await json(
          '/users/passkeys/second_factor',
          { response: authenticator.get(wrong, 'http://evil.example:3000') },
          pending,
        )
      ).json,
    ).toMatchObject(rejected);
    const right = (await json('/users/passkeys/second_factor/options', {}, pending)).json;
    expect(
      (await json('/users/passkeys/second_factor', { response: authenticator.get(right, originOf()) }, pending)).status,
    ).toBe(200);
  });

  it('refuses a counter that went backwards (422) and records passkey_counter_regressed', async () => {
    const { authenticator, session } = await withPasskey();
    const address = fromNewAddress();
    // Counter 1, then 2.
    expect((await passkeySignIn(gw, authenticator, { headers: address })).res.status).toBe(200);
    expect((await passkeySignIn(gw, authenticator, { headers: address })).res.status).toBe(200);
    for (const counter of [2, 1]) {
      const { res } = await passkeySignIn(gw, authenticator, {
        headers: address,
        make: (o) => authenticator.get(o, originOf(), { counter }),
      });
      expect(res.json, `counter ${counter}`).toMatchObject(rejected);
    }
    const events = await activity(session);
    expect(events.filter((t) => t === 'passkey_counter_regressed')).toHaveLength(2);
    expect(events).toContain('passkey_failed');
    // Ahead of the stored counter again: accepted.
    const { res } = await passkeySignIn(gw, authenticator, {
      headers: fromNewAddress(),
      make: (o) => authenticator.get(o, originOf(), { counter: 10 }),
    });
    expect(res.status).toBe(200);
  });

  it('refuses an unknown credential, and one whose user handle is not its account’s, with 422, answered as a bad signature is', async () => {
    const { authenticator } = await withPasskey();
    // A credential made for this RP ID that was never registered.
    const stranger = new SoftAuthenticator();
    stranger.create(
      { challenge: 'eA', rp: { id: 'localhost', name: 'Default' }, user: { id: 'aGFuZGxl', name: 'x' } },
      originOf(),
    );
    const { res } = await passkeySignIn(gw, stranger, { headers: fromNewAddress() });
    expect(res.json).toMatchObject(rejected);
    // A registered credential presenting another user handle.
    const lying = await passkeySignIn(gw, authenticator, {
      headers: fromNewAddress(),
      make: (o) => {
        const answer = authenticator.get(o, originOf());
        return { ...answer, response: { ...answer.response, userHandle: 'c29tZW9uZS1lbHNl' } };
      },
    });
    expect(lying.res.json).toMatchObject(rejected);
    // A registered credential whose signature does not hold: the same answer, so none says which exist.
    const forged = await passkeySignIn(gw, authenticator, {
      headers: fromNewAddress(),
      make: (o) => {
        const answer = authenticator.get(o, originOf());
        return {
          ...answer,
          response: { ...answer.response, signature: answer.response.signature.slice(0, -4) + 'AAAA' },
        };
      },
    });
    const shape = (r: typeof res) => [r.status, r.headers['content-type'], r.headers['content-length'], r.text];
    expect(shape(forged.res)).toEqual(shape(res));
    expect(shape(lying.res)).toEqual(shape(res));
  });

  it('a passkey of realm acme is refused on the default realm, and works on its own', async () => {
    const host = 'acme.localhost';
    const { authenticator, session } = await withPasskey({ host });
    const made = (await json('/users/passkeys/register/options', {}, session, host)).json;
    expect(made.rp).toEqual({ id: host, name: 'Acme Inc' });
    // Signed as acme's page would (its origin and RP ID), or as the default realm's: neither passes here.
    for (const make of [
      (o: AssertionOptions) => authenticator.get(o, originOf(host), { rpId: host }),
      (o: AssertionOptions) => authenticator.get(o, originOf(), { rpId: 'localhost' }),
    ]) {
      const { options, res } = await passkeySignIn(gw, authenticator, { headers: fromNewAddress(), make });
      expect(options.rpId).toBe('localhost');
      expect(res.json).toMatchObject(rejected);
    }
    // Its session is acme's only.
    expect((await gw.send('GET', '/users/passkeys', { headers: session })).status).toBe(401);
    const own = await passkeySignIn(gw, authenticator, { headers: fromNewAddress(), host });
    expect(own.options.rpId).toBe(host);
    expect(own.res.status).toBe(200);
    expect(own.res.json.user.realm).toBe('acme');
    // A challenge of acme's answered on the default realm: not one of this realm's.
    const { response } = await signInAssertion(gw, authenticator, { host, headers: fromNewAddress() });
    expect((await json('/users/passkeys/login', { response }, fromNewAddress())).json).toMatchObject(challengeInvalid);
  });

  it('in a realm that requires a confirmed address, a passkey does not sign in an unconfirmed account (403 email_not_verified)', async () => {
    const host = 'acme.localhost';
    const { authenticator } = await withPasskey({ host });
    await setRequireVerifiedEmail(gw.db.db, 'acme', true);
    try {
      const { res } = await passkeySignIn(gw, authenticator, { headers: fromNewAddress(), host });
      expect(res.json).toMatchObject({ status: 403, code: 'email_not_verified' });
      expect(res.cookie).toBeUndefined();
    } finally {
      await setRequireVerifiedEmail(gw.db.db, 'acme', false);
    }
    expect((await passkeySignIn(gw, authenticator, { headers: fromNewAddress(), host })).res.status).toBe(200);
  });

  it('counts failed assertions in the lockout: five from one address, then 429 too_many_attempts, for the password too', async () => {
    const { authenticator, email } = await withPasskey();
    const guesser = fromNewAddress();
    for (let i = 0; i < 5; i++) {
      const { res } = await passkeySignIn(gw, authenticator, {
        headers: guesser,
        make: (o) => authenticator.get(o, 'http://evil.example:3000'),
      });
      expect(res.json).toMatchObject(rejected);
    }
    const locked = (await passkeySignIn(gw, authenticator, { headers: guesser })).res;
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('too_many_attempts');
    expect(locked.json.title).toMatch(/passwords or codes/);
    expect(locked.headers['retry-after']).toMatch(/^\d+$/);
    // The same account and client: its password is refused too.
    expect((await login(email, guesser)).json.code).toBe('too_many_attempts');
    // Another address is not.
    expect((await passkeySignIn(gw, authenticator, { headers: fromNewAddress() })).res.status).toBe(200);
  });

  it('five failed assertions at the second step end the pending sign-in (429 too_many_codes), counted by the lockout', async () => {
    const { authenticator, email } = await withPasskey();
    const guesser = fromNewAddress();
    const pending = { ...guesser, cookie: pendingCookieOf(await login(email, guesser))! };
    const attempt = async () => {
      const o = (await json('/users/passkeys/second_factor/options', {}, pending)).json;
      return json(
        '/users/passkeys/second_factor',
        { response: authenticator.get(o, 'http://evil.example:3000') },
        pending,
      );
    };
    const refused = [];
    for (let i = 0; i < 4; i++) refused.push((await attempt()).json);
    for (const answer of refused) expect(answer).toMatchObject(rejected);
    expect(refused.map((a) => a.attemptsLeft)).toEqual([undefined, undefined, 2, 1]);
    const fifth = await attempt();
    expect(fifth.json).toMatchObject({ status: 429, code: 'too_many_codes' });
    expect(fifth.headers['retry-after']).toMatch(/^\d+$/);
    expect(setCookieNamed(fifth, 'pending_sign_in')).toMatch(/^pending_sign_in=; Max-Age=0;/);
    expect((await login(email, guesser)).json.code).toBe('too_many_attempts');
  });

  it('refuses a form body (or any type but JSON) on a passkey route with 415 unsupported_media_type_json', async () => {
    const { session } = await withPasskey();
    for (const url of [
      '/users/passkeys/register/options',
      '/users/passkeys/register',
      '/users/passkeys/rename',
      '/users/passkeys/remove',
      '/users/passkeys/login/options',
      '/users/passkeys/login',
      '/users/passkeys/second_factor/options',
      '/users/passkeys/second_factor',
    ]) {
      for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
        const res = await gw.send('POST', url, {
          headers: { ...session, 'content-type': type },
          body: 'current_password=x',
        });
        expect({ url, type, status: res.status, code: res.json.code }).toEqual({
          url,
          type,
          status: 415,
          code: 'unsupported_media_type_json',
        });
        expect(res.json.title).toBe('Send the body as application/json.');
      }
    }
    // The form helper's seed headers too.
    expect((await gw.form('/users/passkeys/login', { response: '{}' })).json.code).toBe('unsupported_media_type_json');
    // JSON with a charset, or in capitals, is JSON.
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON'])
      expect(
        (
          await gw.send('POST', '/users/passkeys/register/options', {
            headers: { ...session, 'content-type': type },
            body: '{}',
          })
        ).status,
      ).toBe(200);
  });

  it('answers malformed JSON structures with 422 validation_failed (400 invalid_body for what is not JSON), never 500', async () => {
    const { session, authenticator, passkey } = await withPasskey();
    const address = fromNewAddress();
    const { response: assertion } = await signInAssertion(gw, authenticator, { headers: address });
    const huge = 'A'.repeat(15_000);
    const answers: { what: string; status: number; code: string }[] = [];
    const send = async (url: string, body: unknown, headers: Record<string, string>) => {
      const res = await json(url, body, headers);
      const what = `${url} ${typeof body === 'string' ? body : JSON.stringify(body).slice(0, 120)}`;
      expectCleanFormAnswer(res, what);
      answers.push({ what, status: res.status, code: res.json.code });
    };
    // Missing fields, wrong types, huge strings, objects where text belongs, on the sign-in.
    for (const body of [
      {},
      { response: null },
      { response: 'a string' },
      { response: 42 },
      { response: true },
      { response: {} },
      { response: { ...assertion, id: 1 } },
      { response: { ...assertion, id: undefined } },
      { response: { ...assertion, type: 'password' } },
      { response: { ...assertion, response: null } },
      { response: { ...assertion, response: 'text' } },
      { response: { ...assertion, response: { ...assertion.response, signature: 'not base64url!' } } },
      { response: { ...assertion, response: { ...assertion.response, signature: undefined } } },
      { response: { ...assertion, response: { ...assertion.response, clientDataJSON: { nested: true } } } },
      { response: { ...assertion, response: { ...assertion.response, userHandle: 7 } } },
      { response: { ...assertion, rawId: huge.replace(/A/g, '!') } },
      { response: { ...assertion, authenticatorAttachment: 'somewhere' } },
      { response: { ...assertion, clientExtensionResults: 'none' } },
    ])
      await send('/users/passkeys/login', body, address);
    // Whole bodies that are not an object: the fields are missing.
    for (const body of ['[]', '"text"', '42', 'null', 'true', '[{"response":{}}]'])
      await send('/users/passkeys/login', body, address);
    // The other routes' fields.
    for (const [url, body] of [
      ['/users/passkeys/rename', { passkey_id: { id: passkey.id }, name: 'x' }],
      ['/users/passkeys/rename', { passkey_id: passkey.id, name: huge }],
      ['/users/passkeys/rename', { passkey_id: passkey.id, name: '' }],
      ['/users/passkeys/rename', { passkey_id: huge, name: 'x' }],
      ['/users/passkeys/rename', { name: 'x' }],
      ['/users/passkeys/remove', { passkey_id: passkey.id, current_password: 12345 }],
      ['/users/passkeys/remove', { passkey_id: passkey.id }],
      ['/users/passkeys/remove', { passkey_id: null, current_password: STRONG }],
      ['/users/passkeys/register/options', { current_password: { text: STRONG } }],
      ['/users/passkeys/register/options', { current_password: huge }],
      ['/users/passkeys/register', { response: { id: 'x' }, name: 'x' }],
      ['/users/passkeys/register', { name: 'no response' }],
      ['/users/passkeys/register', { response: { ...assertion, response: { clientDataJSON: 'eA' } } }],
      ['/users/passkeys/second_factor/options', { pending_token: 7 }],
      ['/users/passkeys/second_factor/options', { pending_token: huge }],
      ['/users/passkeys/second_factor', { response: assertion, pending_token: huge }],
      ['/users/passkeys/second_factor', { pending_token: 'x' }],
    ] as const)
      await send(url, body, session);
    expect(answers).toEqual(answers.map(({ what }) => ({ what, status: 422, code: 'validation_failed' })));

    // Not JSON at all, or JSON that would pollute a prototype: 400 invalid_body.
    for (const body of [
      '{',
      '{"response":}',
      '\u0000',
      "{'response':{}}",
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{}}}',
    ])
      expect((await json('/users/passkeys/login', body, address)).json, body).toMatchObject({
        status: 400,
        code: 'invalid_body',
      });
    // Over 16 KiB: 413.
    expect((await json('/users/passkeys/login', { response: 'x'.repeat(17_000) }, address)).json.code).toBe(
      'payload_too_large',
    );
    // None of it changed the passkey.
    expect((await gw.send('GET', '/users/passkeys', { headers: session })).json.passkeys).toEqual([
      expect.objectContaining({ id: passkey.id, name: passkey.name, lastUsedAt: null }),
    ]);
  });

  it('answers an array where an object or text belongs with 422 validation_failed: JSON has no repeated fields', async () => {
    const { session, authenticator, passkey } = await withPasskey();
    const address = fromNewAddress();
    const { response: assertion } = await signInAssertion(gw, authenticator, { headers: address });
    const answers: { what: string; status: number; code: string }[] = [];
    for (const [url, body, headers] of [
      ['/users/passkeys/login', { response: [] }, address],
      ['/users/passkeys/login', { response: [assertion] }, address],
      ['/users/passkeys/register', { response: [] }, session],
      ['/users/passkeys/rename', { passkey_id: passkey.id, name: ['x', 'y'] }, session],
      ['/users/passkeys/remove', { passkey_id: [passkey.id], current_password: STRONG }, session],
      ['/users/passkeys/register/options', { current_password: [STRONG] }, session],
      ['/users/passkeys/second_factor/options', { pending_token: ['x'] }, session],
    ] as const) {
      const res = await json(url, body, headers);
      const what = `${url} ${JSON.stringify(body).slice(0, 120)}`;
      expectCleanFormAnswer(res, what);
      answers.push({ what, status: res.status, code: res.json.code });
    }
    expect(answers).toEqual(answers.map(({ what }) => ({ what, status: 422, code: 'validation_failed' })));
  });

  it('answers generated JSON for every passkey route with a documented status and a clean body', async () => {
    const { session, authenticator } = await withPasskey();
    const address = fromNewAddress();
    const { response: assertion } = await signInAssertion(gw, authenticator, { headers: address });
    const urls = [
      '/users/passkeys/register/options',
      '/users/passkeys/register',
      '/users/passkeys/rename',
      '/users/passkeys/remove',
      '/users/passkeys/login',
      '/users/passkeys/second_factor/options',
      '/users/passkeys/second_factor',
    ];
    // The right fields with any JSON in them, and the assertion's own fields replaced by any JSON.
    const field = fc.constantFrom('response', 'name', 'passkey_id', 'current_password', 'pending_token');
    const body = fc.oneof(
      fc.dictionary(field, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
      fc
        .record({
          key: fc.constantFrom('id', 'rawId', 'type', 'response', 'clientExtensionResults'),
          value: fc.jsonValue({ maxDepth: 3 }),
        })
        .map(({ key, value }) => ({ response: { ...assertion, [key]: value } })),
      fc.jsonValue({ maxDepth: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...urls), body, async (url, value) => {
        const res = await json(url, JSON.stringify(value), url.includes('/login') ? address : session);
        const what = `${url} ${JSON.stringify(value).slice(0, 160)}`;
        expectCleanFormAnswer(res, what);
        expect(res.status, what).not.toBe(500);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });

  it('asks a passkey-signed-in session for the password before adding a passkey (422 password_recheck_required)', async () => {
    const { authenticator } = await withPasskey();
    const address = fromNewAddress();
    const signedIn = { ...address, cookie: (await passkeySignIn(gw, authenticator, { headers: address })).res.cookie! };
    const recheck = await json('/users/passkeys/register/options', {}, signedIn);
    expect(recheck.status).toBe(422);
    expect(recheck.json).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'current_password', code: 'password_recheck_required' })],
    });
    expect(
      (await json('/users/passkeys/register/options', { current_password: 'not my password at all' }, signedIn)).json,
    ).toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ field: 'current_password', code: 'password_incorrect' })],
    });
    // With the password: options, and for the next 5 minutes none is asked again.
    expect((await json('/users/passkeys/register/options', { current_password: STRONG }, signedIn)).status).toBe(200);
    const added = await addPasskey(gw, signedIn, { name: 'Second' });
    expect(added.passkey.name).toBe('Second');
    // A session whose password check is older than 5 minutes is asked again.
    const { id } = (await me(signedIn)).json.user as { id: string };
    await gw.db.db
      .update(sessions)
      .set({ passwordCheckedAt: sql`now() - interval '6 minutes'` })
      .where(eq(sessions.userId, id));
    expect((await json('/users/passkeys/register/options', {}, signedIn)).json.errors[0].code).toBe(
      'password_recheck_required',
    );
  });

  it('removes a passkey with the password; removing the last factor turns the step off and the password alone signs in', async () => {
    const { session, email, authenticator, passkey } = await withPasskey();
    const remove = (fields: Record<string, string>) => json('/users/passkeys/remove', fields, session);
    expect((await remove({ passkey_id: passkey.id, current_password: 'not my password at all' })).json).toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ field: 'current_password', code: 'password_incorrect' })],
    });
    expect(
      (await remove({ passkey_id: '00000000-0000-0000-0000-000000000000', current_password: STRONG })).json,
    ).toMatchObject({ status: 404, code: 'not_found' });
    const address = fromNewAddress();
    const before = pendingCookieOf(await login(email, address))!;
    const removed = await remove({ passkey_id: passkey.id, current_password: STRONG });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ ok: true });
    expect((await me(session)).json.twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    expect(await activity(session)).toContain('passkey_removed');
    expect((await gw.send('GET', '/users/passkeys', { headers: session })).json).toEqual({ passkeys: [] });
    // A sign-in pending from before is void; the password alone signs in; the passkey no longer does.
    expect((await json('/users/passkeys/second_factor/options', {}, { ...address, cookie: before })).json.code).toBe(
      'sign_in_expired',
    );
    const plain = await login(email, address);
    expect(plain.status).toBe(200);
    expect(plain.cookie).toMatch(/^session=/);
    expect((await passkeySignIn(gw, authenticator, { headers: fromNewAddress() })).res.json).toMatchObject(rejected);
    // Removed already: 404.
    expect((await remove({ passkey_id: passkey.id, current_password: STRONG })).json.code).toBe('not_found');
  });

  it('with the app and a passkey: each keeps the step on without the other; totp/disable is 409 totp_off when only a passkey is left', async () => {
    const { session, email, authenticator, passkey, recoveryCodes } = await withPasskey();
    // A passkey alone: the app can still be set up (two_step_on is about the app).
    const { app, recoveryCodes: appCodes } = await turnOnTwoStep(gw, session);
    // Turning the app on makes new codes; the passkey's are replaced.
    expect(appCodes.filter((c) => recoveryCodes!.includes(c))).toEqual([]);
    expect((await me(session)).json.twoStep).toEqual({
      enabled: true,
      methods: ['passkey', 'totp', 'recovery_code'],
      recoveryCodesLeft: 10,
    });
    const address = fromNewAddress();
    expect((await login(email, address)).json.methods).toEqual(['passkey', 'totp', 'recovery_code']);
    // The app off: the passkey keeps the step on, with the codes.
    expect(
      (await gw.form('/users/totp/disable', { current_password: STRONG, code: await app.next() }, { headers: session }))
        .json,
    ).toEqual({ ok: true });
    expect((await me(session)).json.twoStep).toEqual({
      enabled: true,
      methods: ['passkey', 'recovery_code'],
      recoveryCodesLeft: 10,
    });
    expect(
      (await gw.form('/users/totp/disable', { current_password: STRONG, code: appCodes[0]! }, { headers: session }))
        .json,
    ).toMatchObject({ status: 409, code: 'totp_off' });
    const asked = await login(email, address);
    expect(asked.json).toMatchObject({ code: 'second_factor_required', methods: ['passkey', 'recovery_code'] });
    // A recovery code still completes it; then the passkey goes and the step with it.
    expect(
      (
        await gw.form(
          '/users/login/second_factor',
          { code: appCodes[0]! },
          { headers: { ...address, cookie: pendingCookieOf(asked)! } },
        )
      ).status,
    ).toBe(200);
    expect(
      (await json('/users/passkeys/remove', { passkey_id: passkey.id, current_password: STRONG }, session)).status,
    ).toBe(200);
    expect((await me(session)).json.twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    expect((await login(email, fromNewAddress())).status).toBe(200);
    expect((await passkeySignIn(gw, authenticator, { headers: fromNewAddress() })).res.json).toMatchObject(rejected);
  });

  it('a passkey sign-in ends the session the client presented, as a password sign-in does', async () => {
    const { authenticator, session } = await withPasskey();
    const res = (await passkeySignIn(gw, authenticator, { headers: session })).res;
    expect(res.status).toBe(200);
    expect(res.cookie).not.toBe(session.cookie);
    expect((await me(session)).status).toBe(401);
    expect(setCookies(res).some((c) => c.startsWith('session='))).toBe(true);
  });
});
