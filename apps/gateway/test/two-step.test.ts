import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { base32Decode, parseOtpauth, testDrivers, totpCode } from '@accounts/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedToken } from './support/email-openapi.js';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';
import {
  authenticator,
  deviceCookieOf,
  pendingCookieOf,
  setCookieNamed,
  setCookies,
  turnOnTwoStep,
} from './support/two-step.js';

const run = promisify(execFile);

/** A recovery code as the service shows it: two groups of five of Crockford's base32, lower case. */
const RECOVERY_CODE = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

// Two-step sign-in over real HTTP with the seed's form headers: turning it on with the code an
// independent RFC 6238 implementation computes from the otpauth:// URI, the two steps of a sign-in
// for browsers (a pending cookie) and programs (a pending token), single use of codes, the
// lockout, turning it off, new recovery codes, the reset link, realms, and the database dump.
describe.each(testDrivers())('two-step sign-in over HTTP on %s', (driver) => {
  let gw: Gateway;
  let client = 0;
  beforeAll(async () => {
    // Mails stay queued (a test reads the reset link from the outbox); each test signs in from addresses of its own.
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  /** Headers from an address of this test's own, so the lockout of one test never reaches another. */
  const fromNewAddress = () => ({ 'x-forwarded-for': `198.51.100.${++client % 250}` });

  /** A registered, signed-in account with two-step sign-in on. */
  async function withTwoStep(opts: { host?: string } = {}) {
    const email = uniqueEmail('2fa');
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(email), { headers: address, host: opts.host });
    expect(reg.status).toBe(201);
    const session = { ...address, cookie: reg.cookie! };
    const device = deviceCookieOf(reg)!;
    // Turned on from the browser that registered, its known-device cookie sent along: it stays known.
    const on = await turnOnTwoStep(gw, { ...session, cookie: `${session.cookie}; ${device}` }, { host: opts.host });
    return { email, session, device, ...on };
  }

  const login = (email: string, password = STRONG, headers: Record<string, string> = {}, host?: string) =>
    gw.form('/users/login', { email, password }, { headers, host });
  const secondStep = (fields: Record<string, string>, headers: Record<string, string> = {}, host?: string) =>
    gw.form('/users/login/second_factor', fields, { headers, host });
  const me = (headers: Record<string, string>) => gw.send('GET', '/users/me', { headers });
  const activity = async (headers: Record<string, string>) =>
    ((await gw.send('GET', '/users/activity', { headers })).json.events as { type: string; failed: boolean }[]).map(
      (e) => e.type,
    );
  const fieldError = (code: string, field = 'code') => ({
    status: 422,
    code: 'validation_failed',
    errors: [expect.objectContaining({ field, code })],
  });

  it('turns on with the code computed from the otpauth URI by an independent RFC 6238 implementation', async () => {
    const email = uniqueEmail('setup');
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(email), { headers: address });
    const session = { ...address, cookie: reg.cookie! };
    expect((await me(session)).json.twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    // Turning on before a set-up.
    expect(
      (await gw.form('/users/totp/enable', { code: '123456', current_password: STRONG }, { headers: session })).json,
    ).toMatchObject({ status: 409, code: 'totp_not_set_up' });

    const setup = await gw.form('/users/totp/setup', {}, { headers: session });
    expect(setup.status).toBe(200);
    expect(setup.headers['cache-control']).toBe('no-store');
    expect(setup.json.secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits of base32
    expect(parseOtpauth(setup.json.uri)).toEqual({
      label: `Accounts:${email}`,
      secret: setup.json.secret,
      issuer: 'Accounts',
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
    expect(setup.json.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    // Nothing is on yet.
    expect((await me(session)).json.twoStep.enabled).toBe(false);
    expect((await login(email, STRONG, fromNewAddress())).status).toBe(200);

    // A second set-up replaces the pending secret: the first one's codes turn nothing on.
    const second = await gw.form('/users/totp/setup', {}, { headers: session });
    expect(second.json.secret).not.toBe(setup.json.secret);
    const enable = (fields: Record<string, string>) => gw.form('/users/totp/enable', fields, { headers: session });
    expect((await enable({ code: totpCode(setup.json.secret), current_password: STRONG })).json).toMatchObject(
      fieldError('code_incorrect'),
    );
    const app = authenticator(parseOtpauth(second.json.uri).secret);
    // A wrong password: 422 on current_password, nothing changes.
    expect((await enable({ code: app.peek(), current_password: 'not my password at all' })).json).toMatchObject(
      fieldError('password_incorrect', 'current_password'),
    );
    expect((await me(session)).json.twoStep.enabled).toBe(false);
    const on = await enable({ code: await app.next(), current_password: STRONG });
    expect(on.status).toBe(200);
    const recoveryCodes = on.json.recoveryCodes as string[];
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(RECOVERY_CODE);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await me(session)).json).toMatchObject({
      user: { email },
      twoStep: { enabled: true, methods: ['totp', 'recovery_code'], recoveryCodesLeft: 10 },
    });
    // While it is on, a new set-up (or turning it on again) is 409 two_step_on: turn it off first.
    expect((await gw.form('/users/totp/setup', {}, { headers: session })).json).toMatchObject({
      status: 409,
      code: 'two_step_on',
    });
    expect(
      (await gw.form('/users/totp/enable', { code: app.peek(), current_password: STRONG }, { headers: session })).json,
    ).toMatchObject({ status: 409, code: 'two_step_on' });
    expect(await activity(session)).toContain('two_step_enabled');
  });

  it('does not count a wrong code with the right password against the lockout when turning it on', async () => {
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(), { headers: address });
    const session = { ...address, cookie: reg.cookie! };
    const setup = await gw.form('/users/totp/setup', {}, { headers: session });
    const app = authenticator(setup.json.secret);
    // More wrong codes than the lockout's five failures: each is only a field error.
    for (let i = 0; i < 7; i++)
      expect(
        (await gw.form('/users/totp/enable', { code: app.wrong(), current_password: STRONG }, { headers: session }))
          .json,
      ).toMatchObject(fieldError('code_incorrect'));
    const on = await gw.form(
      '/users/totp/enable',
      { code: await app.next(), current_password: STRONG },
      { headers: session },
    );
    expect(on.status).toBe(200);
  });

  it('a browser: the password starts no session, only a pending sign-in cookie (HttpOnly, SameSite=Strict, 5 minutes) the code completes', async () => {
    const { email, app } = await withTwoStep();
    const address = fromNewAddress();
    const asked = await login(email, STRONG, address);
    expect(asked.status).toBe(401);
    expect(asked.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(asked.headers['cache-control']).toBe('no-store');
    expect(asked.json).toEqual({
      type: 'about:blank',
      status: 401,
      title: expect.any(String),
      code: 'second_factor_required',
      methods: ['totp', 'recovery_code'],
    });
    // One cookie: the pending sign-in. No session, no known device yet.
    expect(setCookies(asked)).toHaveLength(1);
    expect(asked.cookie).toBeUndefined();
    const line = setCookieNamed(asked, 'pending_sign_in')!;
    expect(line).toMatch(/^pending_sign_in=[A-Za-z0-9_-]{43};/);
    const attributes = line.split(/;\s*/).slice(1);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(attributes.some((a) => /^Domain=/i.test(a) || a === 'Secure')).toBe(false);
    const expires = Date.parse(attributes.find((a) => a.startsWith('Expires='))!.slice('Expires='.length));
    const sent = Date.parse(String(asked.headers.date));
    expect(expires - sent).toBeGreaterThan(4 * 60_000);
    expect(expires - sent).toBeLessThanOrEqual(5 * 60_000 + 1000);
    const maxAge = attributes.find((a) => a.startsWith('Max-Age='));
    if (maxAge) expect(Number(maxAge.slice('Max-Age='.length))).toBeLessThanOrEqual(300);
    const pending = pendingCookieOf(asked)!;
    // A pending sign-in is no session.
    expect((await me({ cookie: pending })).status).toBe(401);

    // A wrong code: 422 on code, the pending sign-in stands.
    expect((await secondStep({ code: app.wrong() }, { ...address, cookie: pending })).json).toMatchObject(
      fieldError('code_incorrect'),
    );
    const done = await secondStep({ code: await app.next() }, { ...address, cookie: pending });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ user: expect.objectContaining({ email }) });
    // The same cookies as a sign-in without the second step, and the pending one cleared.
    expect(setCookieNamed(done, 'session')).toMatch(/^session=[A-Za-z0-9_-]{43};.*HttpOnly; SameSite=Lax$/);
    expect(setCookieNamed(done, 'known_device')).toMatch(/HttpOnly; SameSite=Strict$/);
    expect(setCookieNamed(done, 'pending_sign_in')).toMatch(/^pending_sign_in=; Max-Age=0;/);
    expect((await me({ cookie: done.cookie! })).json).toMatchObject({
      user: { email },
      twoStep: { enabled: true, methods: ['totp', 'recovery_code'], recoveryCodesLeft: 10 },
    });
    // Used up: the same pending sign-in again is 401 sign_in_expired.
    expect((await secondStep({ code: app.peek() }, { ...address, cookie: pending })).json).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
    expect(await activity({ cookie: done.cookie! })).toEqual(
      expect.arrayContaining(['sign_in_second_step', 'second_factor_failed', 'signed_in']),
    );
  });

  it('over https the pending cookie is __Host-pending_sign_in, Secure', async () => {
    const { email, app } = await withTwoStep();
    const https = { ...fromNewAddress(), 'x-forwarded-proto': 'https' };
    const asked = await login(email, STRONG, https);
    expect(asked.json.code).toBe('second_factor_required');
    expect(setCookieNamed(asked, '__Host-pending_sign_in')).toMatch(
      /^__Host-pending_sign_in=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
    // The plain name is not read over https.
    const plain = `pending_sign_in=${pendingCookieOf(asked, true)!.split('=')[1]}`;
    expect((await secondStep({ code: app.peek() }, { ...https, cookie: plain })).json.code).toBe('sign_in_expired');
    const done = await secondStep({ code: await app.next() }, { ...https, cookie: pendingCookieOf(asked, true)! });
    expect(done.status).toBe(200);
    expect(setCookieNamed(done, '__Host-session')).toMatch(/Secure/);
  });

  it('a program: X-Session-Delivery: token gets pendingToken in the body and no cookie, and completes with pending_token', async () => {
    const { email, app } = await withTwoStep();
    const program = { ...fromNewAddress(), 'x-session-delivery': 'token' };
    const asked = await login(email, STRONG, program);
    expect(asked.status).toBe(401);
    expect(asked.json).toMatchObject({ code: 'second_factor_required', methods: ['totp', 'recovery_code'] });
    expect(asked.json.pendingToken).toMatch(TOKEN);
    expect(asked.headers['set-cookie']).toBeUndefined();

    const done = await secondStep({ code: await app.next(), pending_token: asked.json.pendingToken }, program);
    expect(done.status).toBe(200);
    expect(done.headers['set-cookie']).toBeUndefined();
    expect(done.json).toMatchObject({
      user: { email },
      session: { token: expect.stringMatching(TOKEN), expiresAt: expect.any(String) },
      knownDevice: expect.stringMatching(TOKEN),
    });
    const bearer = { authorization: `Bearer ${done.json.session.token}` };
    expect((await me(bearer)).json.twoStep.enabled).toBe(true);
    // Used up.
    expect((await secondStep({ code: app.peek(), pending_token: asked.json.pendingToken }, program)).json.code).toBe(
      'sign_in_expired',
    );
    // Without a pending sign-in at all, or with one that is not a token.
    expect((await secondStep({ code: app.peek() }, program)).json).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
    expect((await secondStep({ code: '123456', pending_token: 'nope' }, program)).json.code).toBe('sign_in_expired');
  });

  it('refuses a code already used, and a code of an earlier time step than the last one used', async () => {
    const { email, app } = await withTwoStep();
    const address = fromNewAddress();
    const used = await app.nextWithStep();
    const first = await login(email, STRONG, address);
    const signedIn = await secondStep({ code: used.code }, { ...address, cookie: pendingCookieOf(first)! });
    expect(signedIn.status).toBe(200);
    expect(signedIn.json).not.toHaveProperty('recoveryCodeUsed');
    const again = await login(email, STRONG, address);
    const pending = { ...address, cookie: pendingCookieOf(again)! };
    // Replayed: the same code, within its time step.
    expect((await secondStep({ code: used.code }, pending)).json).toMatchObject(fieldError('code_incorrect'));
    // The step before it: older than the last one accepted.
    expect((await secondStep({ code: app.codeOf(used.step - 1) }, pending)).json).toMatchObject(
      fieldError('code_incorrect'),
    );
    // The next step's code still completes the same pending sign-in.
    expect((await secondStep({ code: await app.next() }, pending)).status).toBe(200);
  });

  it('a recovery code works once, typed in any case with or without its dash; the methods drop recovery_code when none is left', async () => {
    const { email, recoveryCodes, session } = await withTwoStep();
    const address = fromNewAddress();
    const [code, ...rest] = recoveryCodes;
    const asked = await login(email, STRONG, address);
    const done = await secondStep(
      { code: code!.replace('-', '').toUpperCase() },
      { ...address, cookie: pendingCookieOf(asked)! },
    );
    expect(done.status).toBe(200);
    // The answer says a recovery code was used up (the app's code says nothing of the kind).
    expect(done.json).toMatchObject({ user: { email }, recoveryCodeUsed: true });
    expect((await me(session)).json.twoStep).toEqual({
      enabled: true,
      methods: ['totp', 'recovery_code'],
      recoveryCodesLeft: 9,
    });
    expect(await activity(session)).toContain('recovery_code_used');
    // Used: refused as any wrong code.
    const again = await login(email, STRONG, address);
    expect((await secondStep({ code: code! }, { ...address, cookie: pendingCookieOf(again)! })).json).toMatchObject(
      fieldError('code_incorrect'),
    );
    // The other nine, each once.
    for (const other of rest) {
      const a = await login(email, STRONG, address);
      expect((await secondStep({ code: other }, { ...address, cookie: pendingCookieOf(a)! })).status).toBe(200);
    }
    expect((await me(session)).json.twoStep).toEqual({ enabled: true, methods: ['totp'], recoveryCodesLeft: 0 });
    expect((await login(email, STRONG, address)).json).toMatchObject({
      code: 'second_factor_required',
      methods: ['totp'],
    });
  });

  it("five wrong codes end the pending sign-in (429 too_many_codes, with the wait) and count in the lockout, never against the owner's known device", async () => {
    const { email, app, device } = await withTwoStep();
    const guesser = fromNewAddress();
    const asked = await login(email, STRONG, guesser);
    const pending = { ...guesser, cookie: pendingCookieOf(asked)! };
    const wrong = [];
    for (let i = 0; i < 4; i++) wrong.push(await secondStep({ code: app.wrong() }, pending));
    for (const answer of wrong) expect(answer.json).toMatchObject(fieldError('code_incorrect'));
    // The tries left, once two remain.
    expect(wrong.map((a) => a.json.attemptsLeft)).toEqual([undefined, undefined, 2, 1]);
    const fifth = await secondStep({ code: app.wrong() }, pending);
    expect(fifth.status).toBe(429);
    expect(fifth.json).toMatchObject({ status: 429, code: 'too_many_codes' });
    expect(fifth.json.title).toMatch(/^Too many wrong codes\. Try again in about 1[45] minutes\.$/);
    expect(fifth.headers['retry-after']).toBe(String(fifth.json.retryAfter));
    expect(fifth.json.retryAfter).toBeGreaterThan(800);
    expect(fifth.json.retryAfter).toBeLessThanOrEqual(900);
    expect(setCookieNamed(fifth, 'pending_sign_in')).toMatch(/^pending_sign_in=; Max-Age=0;/);
    // Void: the right code no longer completes it; the person starts again with the password.
    expect((await secondStep({ code: app.peek() }, pending)).json.code).toBe('sign_in_expired');
    // Five failures from this address: its password is refused now, as after five wrong passwords.
    const locked = await login(email, STRONG, guesser);
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('too_many_attempts');
    expect(locked.json.title).toMatch(/^Too many failed attempts \(passwords or codes\) for this account\./);
    expect(locked.headers['retry-after']).toMatch(/^\d+$/);
    // The owner's browser (its known-device cookie) from the same address is not locked out.
    const owner = await login(email, STRONG, { ...guesser, cookie: device });
    expect(owner.json.code).toBe('second_factor_required');
    const back = await secondStep(
      { code: await app.next() },
      { ...guesser, cookie: `${device}; ${pendingCookieOf(owner)}` },
    );
    expect(back.status).toBe(200);
  });

  it('turns off with the password and a code; a wrong code there counts like a wrong password (second_factor_failed)', async () => {
    const { email, recoveryCodes, session, app } = await withTwoStep();
    const address = fromNewAddress();
    const before = await login(email, STRONG, address);
    expect(
      (await gw.form('/users/totp/disable', { current_password: STRONG, code: app.wrong() }, { headers: session }))
        .json,
    ).toMatchObject(fieldError('code_incorrect'));
    expect(
      (
        await gw.form(
          '/users/totp/disable',
          { current_password: 'not my password at all', code: recoveryCodes[0]! },
          { headers: session },
        )
      ).json,
    ).toMatchObject(fieldError('password_incorrect', 'current_password'));
    const events = await gw.send('GET', '/users/activity', { headers: session });
    expect(events.json.events).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'second_factor_failed', failed: true })]),
    );
    const off = await gw.form(
      '/users/totp/disable',
      { current_password: STRONG, code: recoveryCodes[0]! },
      { headers: session },
    );
    expect(off.status).toBe(200);
    expect(off.json).toEqual({ ok: true });
    expect((await me(session)).json.twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    expect(await activity(session)).toContain('two_step_disabled');
    // A sign-in pending from before is void; the password alone signs in now.
    expect((await secondStep({ code: app.peek() }, { ...address, cookie: pendingCookieOf(before)! })).status).toBe(401);
    const plain = await login(email, STRONG, address);
    expect(plain.status).toBe(200);
    expect(plain.cookie).toMatch(/^session=/);
    // Off: turning the app off again is 409 totp_off (the app is not on), asking for new codes 409 two_step_off.
    for (const [url, fields, code] of [
      ['/users/totp/disable', { current_password: STRONG, code: recoveryCodes[1]! }, 'totp_off'],
      ['/users/recovery_codes', { current_password: STRONG }, 'two_step_off'],
    ] as const)
      expect((await gw.form(url, fields, { headers: session })).json).toMatchObject({ status: 409, code });
  });

  it('turns off with a current app code too; wrong codes when turning off lock the session out like wrong passwords', async () => {
    const { session, app } = await withTwoStep();
    for (let i = 0; i < 5; i++)
      expect(
        (await gw.form('/users/totp/disable', { current_password: STRONG, code: app.wrong() }, { headers: session }))
          .json,
      ).toMatchObject(fieldError('code_incorrect'));
    const locked = await gw.form(
      '/users/totp/disable',
      { current_password: STRONG, code: app.peek() },
      { headers: session },
    );
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('too_many_attempts');

    const other = await withTwoStep();
    const off = await gw.form(
      '/users/totp/disable',
      { current_password: STRONG, code: await other.app.next() },
      { headers: other.session },
    );
    expect(off.json).toEqual({ ok: true });
  });

  it('new recovery codes replace the old ones at once', async () => {
    const { email, recoveryCodes, session } = await withTwoStep();
    const address = fromNewAddress();
    expect(
      (await gw.form('/users/recovery_codes', { current_password: 'not my password at all' }, { headers: session }))
        .json,
    ).toMatchObject(fieldError('password_incorrect', 'current_password'));
    const fresh = await gw.form('/users/recovery_codes', { current_password: STRONG }, { headers: session });
    expect(fresh.status).toBe(200);
    const codes = fresh.json.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
    expect(codes.filter((c) => recoveryCodes.includes(c))).toEqual([]);
    expect(await activity(session)).toContain('recovery_codes_regenerated');
    const a = await login(email, STRONG, address);
    expect(
      (await secondStep({ code: recoveryCodes[0]! }, { ...address, cookie: pendingCookieOf(a)! })).json,
    ).toMatchObject(fieldError('code_incorrect'));
    const b = await login(email, STRONG, address);
    expect((await secondStep({ code: codes[0]! }, { ...address, cookie: pendingCookieOf(b)! })).status).toBe(200);
    expect((await me(session)).json.twoStep.recoveryCodesLeft).toBe(9);
  });

  /** Five minutes and more since the account's sessions last proved a second factor. */
  const factorsAged = (email: string) =>
    gw.db.db.execute(
      sql`update sessions set factor_checked_at = now() - interval '6 minutes' where user_id = (select id from users where email = ${email})`,
    );

  it("turning it on ends the account's other sessions, the caller's stays; from a stale session new codes ask for a code first", async () => {
    const email = uniqueEmail('2fa-level');
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(email), { headers: address });
    const session = { ...address, cookie: reg.cookie! };
    const elsewhere = { cookie: (await login(email, STRONG, fromNewAddress())).cookie! };
    expect((await me(elsewhere)).status).toBe(200);
    const { app, recoveryCodes } = await turnOnTwoStep(gw, session);
    expect((await me(elsewhere)).json.code).toBe('unauthenticated');
    expect((await me(session)).status).toBe(200);
    expect(await activity(session)).toContain('sessions_revoked');

    await factorsAged(email);
    const asked = await gw.form('/users/recovery_codes', { current_password: STRONG }, { headers: session });
    expect(asked.json).toMatchObject(fieldError('second_factor_recheck_required'));
    expect(asked.json.errors[0].message).toBe(
      'For your security, confirm it is you with your second step: a code or a passkey.',
    );
    const wrong = await gw.form(
      '/users/recovery_codes',
      { current_password: STRONG, code: app.wrong() },
      { headers: session },
    );
    expect(wrong.json).toMatchObject(fieldError('code_incorrect'));
    expect(await activity(session)).toContain('second_factor_failed');
    const made = await gw.form(
      '/users/recovery_codes',
      { current_password: STRONG, code: recoveryCodes[0]! },
      { headers: session },
    );
    expect(made.status).toBe(200);
    expect((made.json.recoveryCodes as string[]).filter((c) => recoveryCodes.includes(c))).toEqual([]);
    // The code proved a factor: for five minutes the session needs none.
    expect((await gw.form('/users/recovery_codes', { current_password: STRONG }, { headers: session })).status).toBe(
      200,
    );
    // A sign-in through the second step is a fresh factor of its own.
    const fresh = fromNewAddress();
    const asked2 = await login(email, STRONG, fresh);
    const signedIn = await secondStep({ code: await app.next() }, { ...fresh, cookie: pendingCookieOf(asked2)! });
    expect(signedIn.status).toBe(200);
    expect(
      (await gw.form('/users/recovery_codes', { current_password: STRONG }, { headers: { cookie: signedIn.cookie! } }))
        .status,
    ).toBe(200);
  });

  it('a reset link neither signs in nor skips the second step, and voids sign-ins pending before it', async () => {
    const { email, app } = await withTwoStep();
    const address = fromNewAddress();
    const before = await login(email, STRONG, address);
    expect((await gw.form('/users/forgot_password', { email }, { headers: address })).status).toBe(202);
    const token = await queuedToken(gw.db.db, email, 'reset_password');
    const reset = await gw.form(
      '/users/reset_password',
      { token, new_password: STRONG2, confirm_password: STRONG2 },
      { headers: address },
    );
    expect(reset.status).toBe(200);
    expect(reset.cookie).toBeUndefined();
    expect(setCookieNamed(reset, 'pending_sign_in')).toBeUndefined();
    expect((await secondStep({ code: app.peek() }, { ...address, cookie: pendingCookieOf(before)! })).json.code).toBe(
      'sign_in_expired',
    );
    // The next sign-in, with the new password, still asks for the code.
    const after = await login(email, STRONG2, address);
    expect(after.status).toBe(401);
    expect(after.json.code).toBe('second_factor_required');
    expect(after.cookie).toBeUndefined();
    expect((await secondStep({ code: await app.next() }, { ...address, cookie: pendingCookieOf(after)! })).status).toBe(
      200,
    );
  });

  it("a pending sign-in of realm acme is refused on the default realm's host, as cookie or as token", async () => {
    const host = 'acme.localhost';
    const { email, app, uri } = await withTwoStep({ host });
    expect(parseOtpauth(uri)).toMatchObject({ issuer: 'Accounts (Acme Inc)', label: `Accounts (Acme Inc):${email}` });
    const address = fromNewAddress();
    const asked = await login(email, STRONG, address, host);
    expect(asked.json.code).toBe('second_factor_required');
    const cookie = { ...address, cookie: pendingCookieOf(asked)! };
    const elsewhere = await secondStep({ code: app.peek() }, cookie);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.json.code).toBe('sign_in_expired');
    expect(elsewhere.cookie).toBeUndefined();
    const program = { ...address, 'x-session-delivery': 'token' };
    const token = (await login(email, STRONG, program, host)).json.pendingToken as string;
    expect(token).toMatch(TOKEN);
    const tokenElsewhere = await secondStep({ code: app.peek(), pending_token: token }, program);
    expect(tokenElsewhere.status).toBe(401);
    expect(tokenElsewhere.json.code).toBe('sign_in_expired');
    // Each still works in its own realm.
    expect((await secondStep({ code: await app.next() }, cookie, host)).status).toBe(200);
    const done = await secondStep({ code: await app.next(), pending_token: token }, program, host);
    expect(done.status).toBe(200);
    expect(done.json.user.realm).toBe('acme');
  });

  it('answers a wrong password exactly as for an account without two-step sign-in', async () => {
    const { email } = await withTwoStep();
    const plain = uniqueEmail('plain');
    expect((await gw.form('/users/register', registration(plain), { headers: fromNewAddress() })).status).toBe(201);
    const address = fromNewAddress();
    const shape = async (who: string) => {
      const res = await login(who, 'a wrong password, long enough', address);
      return [
        res.status,
        res.headers['content-type'],
        res.headers['content-length'],
        res.headers['set-cookie'] ?? null,
        res.text,
      ];
    };
    const withIt = await shape(email);
    expect(withIt).toEqual(await shape(plain));
    expect(JSON.parse(withIt[4] as string)).toMatchObject({
      status: 422,
      errors: [{ field: 'password', code: 'credentials_invalid' }],
    });
  });

  it('the Node one-liner of docs/http-api.md computes the codes the service takes, and the RFC 6238 test vectors', async () => {
    const docs = readFileSync(new URL('../../../docs/http-api.md', import.meta.url), 'utf8');
    const script = /^CODE=\$\(node -e '([^']+)' "\$SECRET"\)$/m.exec(docs)?.[1];
    expect(script, 'the one-liner in docs/http-api.md').toBeDefined();
    const oneLiner = async (secret: string, args: string[] = [], preload: string[] = []) =>
      (await run(process.execPath, [...preload, '-e', script!, secret, ...args])).stdout.trim();
    // RFC 6238 appendix B (SHA-1, the secret "12345678901234567890"), the last six of its eight digits.
    const dir = mkdtempSync(join(tmpdir(), 'accounts-totp-'));
    try {
      for (const [seconds, code] of [
        [59, '287082'],
        [1111111109, '081804'],
        [2000000000, '279037'],
      ] as const) {
        const clock = join(dir, `clock-${seconds}.cjs`);
        writeFileSync(clock, `Date.now = () => ${seconds * 1000};`);
        expect(await oneLiner('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', [], ['--require', clock])).toBe(code);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Against the service: it turns the app on, and with "1" (the next step) signs in.
    const email = uniqueEmail('oneliner');
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(email), { headers: address });
    const session = { ...address, cookie: reg.cookie! };
    const { secret } = (await gw.form('/users/totp/setup', {}, { headers: session })).json as { secret: string };
    const before = totpCode(secret);
    const code = await oneLiner(secret);
    expect([before, totpCode(secret)]).toContain(code);
    expect((await gw.form('/users/totp/enable', { code, current_password: STRONG }, { headers: session })).status).toBe(
      200,
    );
    const asked = await login(email, STRONG, address);
    const next = await oneLiner(secret, ['1']);
    expect((await secondStep({ code: next }, { ...address, cookie: pendingCookieOf(asked)! })).status).toBe(200);
  });

  it('keeps the secret and the recovery codes out of a dump of the database', async () => {
    const { recoveryCodes, app, email } = await withTwoStep();
    // A set-up not yet turned on holds a secret too.
    const address = fromNewAddress();
    const reg = await gw.form('/users/register', registration(), { headers: address });
    const pending = await gw.form('/users/totp/setup', {}, { headers: { ...address, cookie: reg.cookie! } });
    let dump: string;
    if (driver === 'postgres') {
      // The real tool, on the test's database.
      const { stdout } = await run('pg_dump', ['--data-only', '--no-owner', gw.db.url!], {
        maxBuffer: 256 * 1024 * 1024,
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') throw new Error('pg_dump is not installed (apt-get install postgresql-client)');
        throw err;
      });
      dump = stdout;
      expect(dump).toMatch(/COPY public\.totp_credentials /);
      expect(dump).toMatch(/COPY public\.recovery_codes /);
    } else {
      // PGlite: every row of every table as text.
      const tables = await gw.db.db.execute<{ table_name: string }>(
        sql`select table_name from information_schema.tables where table_schema = 'public'`,
      );
      const names = (Array.isArray(tables) ? tables : (tables as { rows: { table_name: string }[] }).rows).map(
        (r) => r.table_name,
      );
      expect(names).toEqual(
        expect.arrayContaining(['users', 'totp_credentials', 'recovery_codes', 'pending_sign_ins']),
      );
      dump = '';
      for (const name of names) {
        const rows = await gw.db.db.execute(sql`select t::text as row from ${sql.identifier(name)} t`);
        dump += `${name}\n${JSON.stringify(rows)}\n`;
      }
    }
    // The dump is real: it holds the account and its sealed secret.
    const lower = dump.toLowerCase();
    expect(lower).toContain(email);
    expect(dump).toMatch(/v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
    for (const secret of [app.secret, pending.json.secret as string]) {
      expect(lower).not.toContain(secret.toLowerCase());
      expect(lower).not.toContain(base32Decode(secret).toString('hex'));
      expect(dump).not.toContain(base32Decode(secret).toString('base64'));
    }
    for (const code of recoveryCodes) {
      expect(lower).not.toContain(code);
      expect(lower).not.toContain(code.replace('-', ''));
    }
  });
});
