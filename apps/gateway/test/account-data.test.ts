import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import {
  accountTokens,
  knownDevices,
  passkeys,
  recoveryCodes,
  sessions,
  totpCredentials,
  users,
  type Database,
} from '@accounts/db';
import { SoftAuthenticator, testDrivers } from '@accounts/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';
import { startSmtp, tokenOf, type TestSmtp } from './support/smtp.js';
import { deviceCookieOf, pendingCookieOf, turnOnTwoStep } from './support/two-step.js';

// A person's own account over real HTTP, with mail through a real SMTP server: moving it to
// another address (POST /users/change_email, the link to the new address, the notices to the
// old), and a copy of everything held about it (POST /users/export).

const SCHEMA = JSON.parse(
  readFileSync(new URL('../../../docs/account-export.schema.json', import.meta.url), 'utf8'),
) as object;
const today = () => new Date().toISOString().slice(0, 10);
/** Everything but the headers that differ between any two answers. */
const stable = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !['date', 'content-length'].includes(k)));

describe.each(testDrivers())('changing the address and taking a copy of the data over HTTP, on %s', (driver) => {
  let gw: Gateway;
  let smtp: TestSmtp;
  let client = 0;
  // Each request from its own address unless a test says otherwise: the per-address limits stay out of the way.
  const from = (ip = `198.51.100.${++client % 250}`) => ({ 'x-forwarded-for': ip });
  beforeAll(async () => {
    smtp = await startSmtp();
    gw = await startGateway(driver, {
      TRUST_PROXY: '127.0.0.1',
      SMTP_URL: smtp.url,
      MAIL_POLL_MS: '50',
      RATE_LIMIT_FORGOT_PASSWORD: '1000',
      RATE_LIMIT_MAIL_PER_EMAIL: '1000',
      MAIL_RECIPIENT_CAP: '1000',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await smtp?.close();
  });

  const post = (url: string, body: Record<string, string>, headers: Record<string, string> = {}, host?: string) =>
    gw.form(url, body, { headers: { ...from(), ...headers }, host });
  const get = (url: string, headers: Record<string, string> = {}, host?: string) =>
    gw.send('GET', url, { headers: { ...from(), ...headers }, host });
  const mailTo = (email: string, subject: RegExp) =>
    smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject));
  const mailsTo = (email: string, subject: RegExp) =>
    smtp.mails.filter((m) => m.to.includes(email) && subject.test(m.subject));
  /** An account whose address is confirmed with its mailed link (notices go to confirmed addresses only). */
  const confirmed = async (host?: string, name = 'Test User') => {
    const email = uniqueEmail('move');
    const res = await post('/users/register', registration(email, STRONG, name), {}, host);
    expect(res.status, res.text).toBe(201);
    const verifyToken = tokenOf(await mailTo(email, /Confirm your email/));
    expect((await post('/users/verify_email', { token: verifyToken }, {}, host)).status).toBe(200);
    return { email, cookie: res.cookie!, device: deviceCookieOf(res)!, verifyToken };
  };
  const login = (email: string, password = STRONG, host?: string) =>
    post('/users/login', { email, password }, {}, host);
  const eventTypes = async (cookie: string, host?: string) =>
    ((await get('/users/activity', { cookie }, host)).json.events as { type: string }[]).map((e) => e.type);

  describe('POST /users/change_email', () => {
    it('mails a link to the new address and a notice to the old; the link moves the account, ends the other sessions and keeps the caller’s', async () => {
      const { email, cookie } = await confirmed();
      const other = await login(email);
      expect(other.status).toBe(200);
      const next = uniqueEmail('moved');
      // The same address as now, however it is written, is a field error.
      const same = await post(
        '/users/change_email',
        { new_email: `  ${email.toUpperCase()} `, current_password: STRONG },
        { cookie },
      );
      expect(same.status).toBe(422);
      expect(same.json).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'new_email', code: 'email_unchanged' }],
      });
      const wrong = await post('/users/change_email', { new_email: next, current_password: STRONG2 }, { cookie });
      expect(wrong.status).toBe(422);
      expect(wrong.json.errors).toEqual([
        expect.objectContaining({ field: 'current_password', code: 'password_incorrect' }),
      ]);
      expect((await post('/users/change_email', { new_email: next, current_password: STRONG })).status).toBe(401);

      // The new address is normalised as at registration: trimmed, lower case.
      const asked = await post(
        '/users/change_email',
        { new_email: `  ${next.toUpperCase()} `, current_password: STRONG },
        { cookie },
      );
      expect(asked.status).toBe(202);
      expect(asked.json).toEqual({ ok: true });
      const pending = await get('/users/email_change', { cookie });
      expect(pending.status).toBe(200);
      expect(pending.json).toEqual({ pending: { newEmail: next, expiresAt: expect.any(String) } });
      const hours = (Date.parse(pending.json.pending.expiresAt) - Date.now()) / 3600_000;
      expect(hours).toBeGreaterThan(23.9);
      expect(hours).toBeLessThanOrEqual(24);

      const link = await mailTo(next, /Confirm your new email address/);
      expect(link.link).toMatch(/^http:\/\/localhost:3000\/confirm-email-change\?token=[A-Za-z0-9_-]{43}$/);
      expect(link.html).toContain(`href="${link.link}"`);
      const notice = await mailTo(email, /A change of email address was asked for/);
      expect(notice.text).toContain('http://localhost:3000/settings/email');
      expect(notice.text).not.toContain(tokenOf(link));
      // Until the link is used nothing changes: the old address signs in, the new one does not.
      expect((await login(email)).status).toBe(200);
      expect((await login(next)).json).toMatchObject({ code: 'validation_failed' });
      expect((await get('/users/me', { cookie })).json.user.email).toBe(email);

      const used = await post('/users/confirm_email_change', { token: tokenOf(link) }, { cookie });
      expect(used.status).toBe(200);
      expect(used.json).toEqual({ ok: true, email: next });
      const me = await get('/users/me', { cookie });
      expect(me.status).toBe(200);
      expect(me.json.user).toMatchObject({ email: next, emailVerified: true });
      // Every other session ended (the one before the request and the one after it).
      expect((await get('/users/me', { cookie: other.cookie! })).status).toBe(401);
      expect((await login(next)).status).toBe(200);
      const old = await login(email);
      expect(old.status).toBe(422);
      expect(old.json.errors[0].code).toBe('credentials_invalid');
      // The old address is told, the new one masked.
      const replaced = await mailTo(email, /has a new email address/);
      expect(replaced.text).toContain(`${next[0]}***@example.com`);
      expect(replaced.text).not.toContain(next);
      expect(await eventTypes(cookie)).toEqual(expect.arrayContaining(['email_change_requested', 'email_changed']));
      // The link works once.
      const again = await post('/users/confirm_email_change', { token: tokenOf(link) });
      expect(again.status).toBe(400);
      expect(again.json).toMatchObject({
        code: 'email_change_token_invalid',
        errors: [{ field: 'token', code: 'email_change_token_invalid' }],
      });
      expect((await get('/users/email_change', { cookie })).json).toEqual({ pending: null });
    });

    it('answers an address another account has exactly as a free one, and mails that address that someone tried', async () => {
      const a = await confirmed();
      const b = await confirmed();
      const free = await post(
        '/users/change_email',
        { new_email: uniqueEmail('free'), current_password: STRONG },
        { cookie: a.cookie },
      );
      const taken = await post(
        '/users/change_email',
        { new_email: b.email.toUpperCase(), current_password: STRONG },
        { cookie: a.cookie },
      );
      expect(taken.status).toBe(202);
      expect(taken.text).toBe(free.text);
      expect(stable(taken.headers)).toEqual(stable(free.headers));
      const attempt = await mailTo(b.email, /Someone tried to use this email address/);
      expect(attempt.link).toBeUndefined();
      expect(attempt.text).not.toContain(a.email);
      // Nothing for b to confirm; the old address was told of the attempt as of any change.
      await expect.poll(() => mailsTo(a.email, /A change of email address was asked for/).length).toBe(2);
      expect(mailsTo(b.email, /Confirm your new email address/)).toEqual([]);
      expect((await get('/users/me', { cookie: a.cookie })).json.user.email).toBe(a.email);
      expect((await get('/users/me', { cookie: b.cookie })).json.user.email).toBe(b.email);
    });

    it('fails with 409 email_taken, changing nothing, when another account took the address before the link was used', async () => {
      const a = await confirmed();
      const next = uniqueEmail('race');
      expect(
        (await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie: a.cookie })).status,
      ).toBe(202);
      const link = tokenOf(await mailTo(next, /Confirm your new email address/));
      const fast = await post('/users/register', registration(next, STRONG2, 'Fast'));
      expect(fast.status).toBe(201);
      const lost = await post('/users/confirm_email_change', { token: link }, { cookie: a.cookie });
      expect(lost.status).toBe(409);
      expect(lost.json).toMatchObject({ code: 'email_taken', errors: [{ field: 'token', code: 'email_taken' }] });
      expect((await get('/users/me', { cookie: a.cookie })).json.user).toMatchObject({
        email: a.email,
        emailVerified: true,
      });
      expect((await get('/users/me', { cookie: fast.cookie! })).json.user.email).toBe(next);
      expect((await login(a.email)).status).toBe(200);
      expect((await login(next, STRONG2)).status).toBe(200);
      expect(await eventTypes(a.cookie)).not.toContain('email_changed');
      expect(mailsTo(a.email, /has a new email address/)).toEqual([]);
    });

    it('a cancelled change leaves its link dead', async () => {
      const a = await confirmed();
      const next = uniqueEmail('cancel');
      await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie: a.cookie });
      const link = tokenOf(await mailTo(next, /Confirm your new email address/));
      expect((await post('/users/cancel_email_change', {})).status).toBe(401);
      const cancelled = await post('/users/cancel_email_change', {}, { cookie: a.cookie });
      expect(cancelled.status).toBe(200);
      expect(cancelled.json).toEqual({ ok: true });
      expect((await get('/users/email_change', { cookie: a.cookie })).json).toEqual({ pending: null });
      const dead = await post('/users/confirm_email_change', { token: link }, { cookie: a.cookie });
      expect(dead.status).toBe(400);
      expect(dead.json.code).toBe('email_change_token_invalid');
      expect((await get('/users/me', { cookie: a.cookie })).json.user.email).toBe(a.email);
      expect(await eventTypes(a.cookie)).toContain('email_change_cancelled');
    });

    it('a link of realm acme does nothing on the default realm, and works on its own', async () => {
      const a = await confirmed('acme.localhost');
      const next = uniqueEmail('acme');
      expect(
        (
          await post(
            '/users/change_email',
            { new_email: next, current_password: STRONG },
            { cookie: a.cookie },
            'acme.localhost',
          )
        ).status,
      ).toBe(202);
      const mail = await mailTo(next, /Confirm your new email address for Acme Inc/);
      expect(mail.link).toMatch(/^http:\/\/acme\.localhost:3000\/confirm-email-change\?token=/);
      const elsewhere = await post('/users/confirm_email_change', { token: tokenOf(mail) });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.json.code).toBe('email_change_token_invalid');
      const home = await post('/users/confirm_email_change', { token: tokenOf(mail) }, {}, 'acme.localhost');
      expect(home.status).toBe(200);
      expect(home.json).toEqual({ ok: true, email: next });
      // No session came with it: every session of the account ended.
      expect((await get('/users/me', { cookie: a.cookie }, 'acme.localhost')).status).toBe(401);
      expect((await login(next, STRONG, 'acme.localhost')).status).toBe(200);
    });
  });

  describe('POST /users/export', () => {
    /** Every value of the account's rows that must never leave: hashes, digests, secrets, keys. */
    async function storedSecrets(db: Database, userId: string): Promise<string[]> {
      const [user] = await db.select().from(users).where(eq(users.id, userId));
      const rows = [
        ...(await db.select({ v: sessions.tokenHash }).from(sessions).where(eq(sessions.userId, userId))),
        ...(await db.select({ v: knownDevices.tokenHash }).from(knownDevices).where(eq(knownDevices.userId, userId))),
        ...(await db
          .select({ v: accountTokens.tokenHash })
          .from(accountTokens)
          .where(eq(accountTokens.userId, userId))),
        ...(await db.select({ v: recoveryCodes.digest }).from(recoveryCodes).where(eq(recoveryCodes.userId, userId))),
        ...(await db
          .select({ v: totpCredentials.secret })
          .from(totpCredentials)
          .where(eq(totpCredentials.userId, userId))),
        ...(await db.select({ v: passkeys.credentialId }).from(passkeys).where(eq(passkeys.userId, userId))),
        ...(await db.select({ v: passkeys.publicKey }).from(passkeys).where(eq(passkeys.userId, userId))),
      ];
      return [user!.passwordHash, ...rows.map((r) => r.v).filter((v): v is string => !!v)];
    }

    it('answers a download of everything held about the account, valid against docs/account-export.schema.json, with nothing secret and nothing of another realm', async () => {
      const owner = await confirmed(undefined, 'Ada Owner');
      const { email, cookie } = owner;
      const me = (await get('/users/me', { cookie })).json.user as { id: string };
      // Two-step sign-in, with an authenticator app and a passkey.
      const twoStep = await turnOnTwoStep(gw, { cookie: `${cookie}; ${owner.device}`, ...from() });
      const authenticator = new SoftAuthenticator();
      const json = { cookie, 'content-type': 'application/json' };
      const options = await gw.send('POST', '/users/passkeys/register/options', {
        headers: { ...json, ...from() },
        body: '{}',
      });
      expect(options.status, options.text).toBe(200);
      const created = authenticator.create(options.json, 'http://localhost:3000');
      const added = await gw.send('POST', '/users/passkeys/register', {
        headers: { ...json, ...from() },
        body: JSON.stringify({ response: created, name: 'Laptop' }),
      });
      expect(added.status, added.text).toBe(201);
      // A second session, on a known device, signed in through the second step (turning it on ended those before).
      const firefox = { 'user-agent': 'Firefox/140.0' };
      const asked = await post('/users/login', { email, password: STRONG }, firefox);
      expect(asked.status).toBe(401);
      const second = await post(
        '/users/login/second_factor',
        { code: await twoStep.app.next() },
        { ...firefox, cookie: pendingCookieOf(asked)! },
      );
      expect(second.status).toBe(200);
      // Mailed links: a reset link, and a change of address waiting for its link.
      expect((await post('/users/forgot_password', { email })).status).toBe(202);
      const resetToken = tokenOf(await mailTo(email, /Reset your password/));
      const next = uniqueEmail('pending');
      await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie });
      const changeToken = tokenOf(await mailTo(next, /Confirm your new email address/));
      // The same address in realm acme: another account, another person's data.
      const twinAddress = '192.0.2.201';
      const twin = await post(
        '/users/register',
        registration(email, STRONG2, 'Acme Twin'),
        { 'x-forwarded-for': twinAddress },
        'acme.localhost',
      );
      expect(twin.status).toBe(201);
      const twinId = (await get('/users/me', { cookie: twin.cookie! }, 'acme.localhost')).json.user.id as string;

      const before = today();
      const res = await post('/users/export', {}, { cookie });
      const after = today();
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect([before, after].map((d) => `attachment; filename="account-default-${d}.json"`)).toContain(
        res.headers['content-disposition'],
      );

      const ajv = new Ajv2020({ allErrors: true, strict: true });
      addFormats.default(ajv);
      const validate = ajv.compile(SCHEMA);
      expect(validate(res.json), ajv.errorsText(validate.errors)).toBe(true);

      const copy = res.json;
      expect(copy.format).toBe('accounts-export/1');
      expect(copy.realm).toEqual({ slug: 'default', name: expect.any(String) });
      expect(copy.account).toMatchObject({ id: me.id, name: 'Ada Owner', email, twoStep: true });
      expect(copy.account.emailVerifiedAt).toEqual(expect.any(String));
      expect(copy.pendingEmailChange).toEqual({ newEmail: next, expiresAt: expect.any(String) });
      // Every table that holds personal data.
      expect(copy.sessions).toHaveLength(2);
      expect(copy.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      expect(copy.sessions.map((s: { userAgent: string | null }) => s.userAgent)).toContain('Firefox/140.0');
      expect(copy.sessions.every((s: { address: string | null }) => s.address?.startsWith('198.51.100.'))).toBe(true);
      expect(copy.knownDevices.length).toBeGreaterThanOrEqual(1);
      expect(copy.events.map((e: { type: string }) => e.type)).toEqual(
        expect.arrayContaining([
          'registered',
          'email_verified',
          'signed_in',
          'two_step_enabled',
          'passkey_added',
          'email_change_requested',
        ]),
      );
      const kinds = copy.mails.map((m: { kind: string }) => m.kind);
      expect(kinds).toEqual(expect.arrayContaining(['verify_email', 'reset_password', 'email_change_requested']));
      // The change's confirmation link is not listed: it would tell whether the new address was free.
      expect(kinds).not.toContain('confirm_email_change');
      expect(copy.secondFactors.authenticatorApp).toEqual({
        createdAt: expect.any(String),
        enabledAt: expect.any(String),
      });
      expect(copy.secondFactors.passkeys).toEqual([expect.objectContaining({ name: 'Laptop', synced: false })]);
      expect(copy.secondFactors.recoveryCodes).toMatchObject({ left: 10, used: 0 });

      // Nothing secret: not the tokens the client holds, not what the database keeps of them.
      const text = res.text;
      const secrets = [
        cookie.split('=')[1]!,
        second.cookie!.split('=')[1]!,
        ...owner.device.split('=')[1]!.split('.'),
        ...(deviceCookieOf(second)?.split('=')[1]?.split('.') ?? []),
        ...twoStep.recoveryCodes,
        ...twoStep.recoveryCodes.map((c) => c.replace('-', '')),
        twoStep.app.secret,
        owner.verifyToken,
        resetToken,
        changeToken,
        created.id,
        ...(await storedSecrets(gw.db.db, me.id)),
      ];
      expect(secrets.length).toBeGreaterThan(20);
      for (const secret of secrets)
        expect(text.includes(secret), `a secret (${secret.slice(0, 6)}…) in the copy`).toBe(false);
      expect(text).not.toMatch(
        /"(token|tokenHash|passwordHash|secret|pendingSecret|digest|link|payload|publicKey|credentialId)"/,
      );
      // Nothing of the account of the same address in realm acme.
      for (const foreign of [twinId, 'Acme Twin', twinAddress, twin.cookie!.split('=')[1]!, 'Acme Inc'])
        expect(text.includes(foreign), foreign).toBe(false);

      // An account event, and a notice to the owner.
      expect(await eventTypes(cookie)).toContain('data_exported');
      const notice = await mailTo(email, /A copy of your data at .* was downloaded/);
      expect(notice.text).toContain('http://localhost:3000/forgot-password');

      // The twin's own copy, named for its realm, holds its account only.
      const theirs = await post('/users/export', {}, { cookie: twin.cookie! }, 'acme.localhost');
      expect(theirs.status).toBe(200);
      expect(theirs.headers['content-disposition']).toMatch(
        /^attachment; filename="account-acme-\d{4}-\d{2}-\d{2}\.json"$/,
      );
      expect(theirs.json.account).toMatchObject({ id: twinId, email, name: 'Acme Twin', twoStep: false });
      expect(theirs.json.realm.slug).toBe('acme');
      expect(theirs.text.includes(me.id)).toBe(false);
      expect(theirs.json.sessions.map((s: { address: string }) => s.address)).toEqual([twinAddress]);
    });

    it('asks for the password when the session has not proved it in the last five minutes; POST with current_password proves it', async () => {
      const { email, cookie } = await confirmed();
      const userId = (await get('/users/me', { cookie })).json.user.id as string;
      expect((await post('/users/export', {})).status).toBe(401);
      await gw.db.db
        .update(sessions)
        .set({ passwordCheckedAt: sql`now() - interval '6 minutes'` })
        .where(eq(sessions.userId, userId));
      const stale = await post('/users/export', {}, { cookie });
      expect(stale.status).toBe(422);
      expect(stale.json).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'current_password', code: 'password_recheck_required' }],
      });
      expect(stale.headers['content-disposition']).toBeUndefined();
      const wrong = await post('/users/export', { current_password: STRONG2 }, { cookie });
      expect(wrong.status).toBe(422);
      expect(wrong.json.errors).toEqual([
        expect.objectContaining({ field: 'current_password', code: 'password_incorrect' }),
      ]);
      expect((await post('/users/export', {}, { cookie })).json.errors).toEqual([
        expect.objectContaining({ field: 'current_password', code: 'password_recheck_required' }),
      ]);
      expect(await eventTypes(cookie)).not.toContain('data_exported');

      const proved = await post('/users/export', { current_password: STRONG }, { cookie });
      expect(proved.status).toBe(200);
      expect(proved.headers['content-disposition']).toMatch(/^attachment; filename="account-default-[\d-]{10}\.json"$/);
      expect(proved.json.account.email).toBe(email);
      // Proved now: for five minutes no password is needed.
      expect((await post('/users/export', {}, { cookie })).status).toBe(200);
      expect((await post('/users/export', {}, { cookie })).status).toBe(200);
      expect((await eventTypes(cookie)).filter((t) => t === 'data_exported')).toHaveLength(3);
      await expect.poll(() => mailsTo(email, /A copy of your data/).length).toBe(3);
      const [row] = await gw.db.db
        .select({ at: sessions.passwordCheckedAt })
        .from(sessions)
        .where(eq(sessions.userId, userId));
      expect(Date.now() - row!.at!.getTime()).toBeLessThan(60_000);
    });

    it('takes no GET or HEAD, however it comes (a link or a navigation from another site): 405, no file, no event, no notice', async () => {
      const { email, cookie } = await confirmed();
      // What Chromium sends for a link on another site: the session cookie (SameSite=Lax) goes along.
      const navigation = {
        cookie,
        accept: 'text/html,application/xhtml+xml',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
      };
      for (const method of ['GET', 'HEAD'])
        for (const headers of [navigation, { cookie }]) {
          const res = await gw.send(method, '/users/export', { headers: { ...from(), ...headers } });
          expect(res.status, method).toBe(405);
          expect(res.headers.allow, method).toBe('POST');
          expect(res.headers['content-disposition'], method).toBeUndefined();
        }
      expect(await eventTypes(cookie)).not.toContain('data_exported');
      // The POST after them hands over the first copy, and its notice is the only one.
      expect((await post('/users/export', {}, { cookie })).status).toBe(200);
      await mailTo(email, /A copy of your data/);
      expect(mailsTo(email, /A copy of your data/)).toHaveLength(1);
      expect((await eventTypes(cookie)).filter((t) => t === 'data_exported')).toHaveLength(1);
    });
  });
});

describe('limits on changing the address over HTTP', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '0',
      RATE_LIMIT_CHANGE_PASSWORD: '3',
      RATE_LIMIT_ACCOUNT_WRITES: '4',
      RATE_LIMIT_MAIL_PER_EMAIL: '1000',
      MAIL_RECIPIENT_CAP: '1000',
    });
  });
  afterAll(() => gw?.close());

  let n = 0;
  const signUp = async () => {
    const res = await gw.form('/users/register', registration(uniqueEmail('limit')), {
      headers: { 'x-forwarded-for': `198.51.100.${++n}` },
    });
    expect(res.status).toBe(201);
    return res.cookie!;
  };
  const ask = (cookie: string, ip: string) =>
    gw.form(
      '/users/change_email',
      { new_email: uniqueEmail('next'), current_password: STRONG },
      { headers: { cookie, 'x-forwarded-for': ip } },
    );

  it('per client address: RATE_LIMIT_CHANGE_PASSWORD (the limit of a password check), whichever account asks', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await ask(await signUp(), '203.0.113.10'));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 429]);
    expect(answers[3]!.json).toMatchObject({ code: 'rate_limited' });
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held back.
    expect((await ask(await signUp(), '203.0.113.11')).status).toBe(202);
  });

  it('per account: RATE_LIMIT_ACCOUNT_WRITES, whichever address it comes from', async () => {
    const cookie = await signUp();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await ask(cookie, `203.0.113.${20 + i}`));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 429]);
    expect(answers[4]!.json).toMatchObject({ code: 'rate_limited' });
    expect(Number(answers[4]!.headers['retry-after'])).toBeGreaterThan(0);
    // Cancelling is an account write too.
    expect(
      (await gw.form('/users/cancel_email_change', {}, { headers: { cookie, 'x-forwarded-for': '203.0.113.30' } }))
        .status,
    ).toBe(429);
    // Another account is not held back.
    expect((await ask(await signUp(), '203.0.113.31')).status).toBe(202);
  });
});
