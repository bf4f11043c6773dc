import { eq, sql } from 'drizzle-orm';
import { accountEvents, recoveryCodes, sessions, users } from '@accounts/db';
import { base32Decode, parseOtpauth, STRONG, STRONG2, testDrivers, totpCode } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { resetSecondStep } from '../src/operator/accounts.js';
import { costOf, createHasher } from '../src/credentials/password-hashing.js';
import { mailCaller, mailsTo, operatorMail, signUp, tokenFrom } from './email-harness.js';
import { signInKnown } from '../src/sign-in/flow.js';
import { createVault, newSecretKey } from '../src/kernel/vault.js';
import { problemOf, testContext, useHarness } from './harness.js';

// Two-step sign-in on the procedures: set-up, the sign-in's two steps for browsers and programs,
// single use of codes, the lockout, and every way into a session passing the same gate.
describe.each(testDrivers())('two-step sign-in on %s', (driver) => {
  const h = useHarness(driver, { failureWindowMs: 60_000 });

  const eventsOf = async (userId: string) =>
    (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);
  const confirmAddress = (userId: string) =>
    h.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));

  /** An account with the authenticator app on: its secret (read from the URI as an app would) and recovery codes. */
  async function withTwoStep(realm = 'default') {
    const account = await signUp(h, realm);
    const c = mailCaller(h, { realm, token: account.token, device: account.device });
    const setup = await c.twoStep.setupTotp();
    const { secret } = parseOtpauth(setup.uri);
    const { recoveryCodes } = await c.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    return { ...account, secret, recoveryCodes, owner: c };
  }

  /** The password step: the problem, and the pending sign-in a browser got as a cookie. */
  async function passwordStep(email: string, opts: Parameters<typeof mailCaller>[1] = {}) {
    const c = mailCaller(h, opts);
    const problem = await problemOf(c.account.signIn({ email, password: STRONG }));
    return { problem, c, pending: c.pending.at(-1) ?? null };
  }

  const secondStep = (pending: string | null, code: string, opts: Parameters<typeof mailCaller>[1] = {}) => {
    const c = mailCaller(h, { ...opts, pending: pending ?? undefined });
    return { c, result: c.account.signInSecondStep({ code }) };
  };

  it('set-up hands out a 160-bit secret, its otpauth URI and a QR code; nothing is on until a code confirms it', async () => {
    const { token, device, email } = await signUp(h);
    const c = mailCaller(h, { token, device });
    expect(await c.twoStep.pendingTotp()).toBeNull();
    const first = await c.twoStep.setupTotp();
    expect(first.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = parseOtpauth(first.uri);
    expect(uri).toMatchObject({ secret: first.secret, issuer: 'Accounts', algorithm: 'SHA1', digits: 6, period: 30 });
    expect(uri.label).toBe(`Accounts:${email}`);
    expect(first.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(first.qrCode.split(',')[1]!, 'base64').toString()).toContain('<svg');
    expect((await c.account.me()).twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });

    // A second set-up replaces the pending secret: the first one's codes no longer turn it on.
    const second = await c.twoStep.setupTotp();
    expect(second.secret).not.toBe(first.secret);
    expect(
      await problemOf(c.twoStep.enableTotp({ code: totpCode(first.secret), current_password: STRONG })),
    ).toMatchObject({ status: 422, fields: { code: 'code_incorrect' } });
    expect(
      await problemOf(c.twoStep.enableTotp({ code: totpCode(second.secret), current_password: 'not my password' })),
    ).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    expect((await c.account.me()).twoStep.enabled).toBe(false);
    // The set-up waiting for its code is shown again as it is, never replaced by asking.
    expect(await c.twoStep.pendingTotp()).toEqual(second);

    const { recoveryCodes } = await c.twoStep.enableTotp({ code: totpCode(second.secret), current_password: STRONG });
    expect(await c.twoStep.pendingTotp()).toBeNull();
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await c.account.me()).twoStep).toEqual({
      enabled: true,
      methods: ['totp', 'recovery_code'],
      recoveryCodesLeft: 10,
    });
    // On: a new set-up is refused until it is turned off.
    expect(await problemOf(c.twoStep.setupTotp())).toMatchObject({ status: 409, code: 'two_step_on' });
  });

  it('turning it on without a set-up is 409 totp_not_set_up', async () => {
    const { token } = await signUp(h);
    expect(
      await problemOf(mailCaller(h, { token }).twoStep.enableTotp({ code: '123456', current_password: STRONG })),
    ).toMatchObject({ status: 409, code: 'totp_not_set_up' });
  });

  it('names the realm in the issuer for realms other than the default', async () => {
    await h.realm('acme');
    const { token } = await signUp(h, 'acme');
    const { uri } = await mailCaller(h, { realm: 'acme', token }).twoStep.setupTotp();
    expect(parseOtpauth(uri).issuer).toBe('Accounts (Realm acme)');
  });

  it('a browser: the right password starts no session, only a pending sign-in the code completes', async () => {
    const { email, secret, user } = await withTwoStep();
    const { problem, c, pending } = await passwordStep(email, { ip: '198.51.100.1' });
    expect(problem).toMatchObject({ status: 401, code: 'second_factor_required', methods: ['totp', 'recovery_code'] });
    expect(problem.pendingToken).toBeUndefined();
    expect(c.issued).toHaveLength(0);
    expect(pending).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const done = secondStep(pending, totpCode(secret, Date.now(), 1), { ip: '198.51.100.1' });
    const answered = await done.result;
    const { user: signedIn } = answered;
    expect(signedIn.id).toBe(user.id);
    // The app's code used up no recovery code: the answer does not say one was.
    expect(answered).not.toHaveProperty('recoveryCodeUsed');
    expect(done.c.issued).toHaveLength(1);
    expect(done.c.devices).toHaveLength(1);
    expect(done.c.pending).toEqual([null]);
    // The session works.
    expect((await mailCaller(h, { token: done.c.issued[0]!.token }).account.me()).user.id).toBe(user.id);
    expect(await eventsOf(user.id)).toEqual(expect.arrayContaining(['sign_in_second_step', 'signed_in']));
    // The pending sign-in is used up.
    expect(await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1)).result)).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
  });

  it('a program: the pending sign-in comes in the body, and goes back as pending_token', async () => {
    const { email, secret } = await withTwoStep();
    const { problem, c } = await passwordStep(email, { tokensInBody: true });
    expect(problem).toMatchObject({ status: 401, code: 'second_factor_required' });
    expect(problem.pendingToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c.pending).toEqual([]);
    const p = mailCaller(h, { tokensInBody: true });
    const result = await p.account.signInSecondStep({
      code: totpCode(secret, Date.now(), 1),
      pending_token: problem.pendingToken,
    });
    expect(result.session?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.knownDevice).toBeTruthy();
  });

  it('a code is used once: the same code, or an older one, is refused afterwards', async () => {
    const { email, secret } = await withTwoStep();
    const later = totpCode(secret, Date.now(), 1);
    await secondStep((await passwordStep(email)).pending, later).result;
    // Replayed within its time step.
    const again = await passwordStep(email);
    expect(await problemOf(secondStep(again.pending, later).result)).toMatchObject({
      status: 422,
      fields: { code: 'code_incorrect' },
    });
    // The set-up's own code (an earlier step) too.
    expect(await problemOf(secondStep(again.pending, totpCode(secret)).result)).toMatchObject({
      status: 422,
      fields: { code: 'code_incorrect' },
    });
  });

  it('a wrong password answers as for an account without the second step', async () => {
    const { email } = await withTwoStep();
    const plain = await signUp(h);
    const a = await problemOf(
      mailCaller(h, { ip: '198.51.100.9' }).account.signIn({ email, password: 'wrong one here' }),
    );
    const b = await problemOf(
      mailCaller(h, { ip: '198.51.100.9' }).account.signIn({ email: plain.email, password: 'wrong one here' }),
    );
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: 422, fields: { password: 'credentials_invalid' } });
  });

  it('a recovery code works once, and the owner is told', async () => {
    const { email, recoveryCodes, user, owner } = await withTwoStep();
    await confirmAddress(user.id);
    const [code] = recoveryCodes;
    // Typed in capitals and without the dash, it is the same code; the answer says a recovery code was used up.
    const signedIn = await secondStep((await passwordStep(email)).pending, code!.replace('-', '').toUpperCase()).result;
    expect(signedIn).toMatchObject({ user: { id: user.id }, recoveryCodeUsed: true });
    expect((await owner.account.me()).twoStep.recoveryCodesLeft).toBe(9);
    expect(await eventsOf(user.id)).toContain('recovery_code_used');
    const [notice] = await mailsTo(h.db.db, email, 'two_step_changed');
    expect(notice?.payload).toMatchObject({ change: 'recovery_code_used' });
    expect(await problemOf(secondStep((await passwordStep(email)).pending, code!).result)).toMatchObject({
      status: 422,
      fields: { code: 'code_incorrect' },
    });
  });

  it("five wrong codes end the pending sign-in with 429 too_many_codes and the wait; never against the owner's known device", async () => {
    const { email, secret, device } = await withTwoStep();
    const ip = '198.51.100.20';
    const { pending } = await passwordStep(email, { ip });
    const wrong = totpCode(secret, Date.now(), 1) === '000000' ? '111111' : '000000';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await problemOf(secondStep(pending, wrong, { ip }).result));
    // How many tries are left is said once two remain.
    expect(answers.map((a) => [a.status, a.fields.code, a.attemptsLeft])).toEqual([
      [422, 'code_incorrect', undefined],
      [422, 'code_incorrect', undefined],
      [422, 'code_incorrect', 2],
      [422, 'code_incorrect', 1],
    ]);
    const fifth = secondStep(pending, wrong, { ip });
    const ended = await problemOf(fifth.result);
    expect(ended).toMatchObject({ status: 429, code: 'too_many_codes' });
    // When this client may sign in again, by the lockout's window (60 s here).
    expect(ended.retryAfter).toBeGreaterThan(30);
    expect(ended.retryAfter).toBeLessThanOrEqual(60);
    expect(fifth.c.pending).toEqual([null]);
    // Void: even the right code no longer completes it.
    expect(await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1), { ip }).result)).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
    // Five failures from this address: its next password is refused, as after five wrong passwords.
    const locked = await problemOf(mailCaller(h, { ip }).account.signIn({ email, password: STRONG }));
    expect(locked).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(Math.abs(locked.retryAfter! - ended.retryAfter!)).toBeLessThanOrEqual(2);
    // The owner's known device is not locked out by them.
    const owner = await passwordStep(email, { ip, device });
    expect(owner.problem).toMatchObject({ status: 401, code: 'second_factor_required' });
  });

  it('the tries left are the fewer of the pending sign-in and the lockout: wrong passwords before count', async () => {
    const { email, secret } = await withTwoStep();
    const ip = '198.51.100.21';
    for (let i = 0; i < 3; i++)
      await problemOf(mailCaller(h, { ip }).account.signIn({ email, password: `wrong password ${i}` }));
    const { pending } = await passwordStep(email, { ip });
    const wrong = totpCode(secret, Date.now(), 1) === '000000' ? '111111' : '000000';
    expect(await problemOf(secondStep(pending, wrong, { ip }).result)).toMatchObject({ status: 422, attemptsLeft: 1 });
    expect(await problemOf(secondStep(pending, wrong, { ip }).result)).toMatchObject({
      status: 429,
      code: 'too_many_codes',
    });
    expect(await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1), { ip }).result)).toMatchObject({
      code: 'sign_in_expired',
    });
  });

  it('a reset does not buy more code guesses: wrong codes still count after it', async () => {
    const { email, secret } = await withTwoStep();
    const ip = '198.51.100.22';
    const { pending } = await passwordStep(email, { ip });
    const wrong = totpCode(secret, Date.now(), 1) === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await problemOf(secondStep(pending, wrong, { ip }).result);
    await mailCaller(h, { ip }).email.forgotPassword({ email });
    const token = await tokenFrom(h.db.db, email, 'reset_password');
    await mailCaller(h, { ip }).email.resetPassword({ token, new_password: STRONG2, confirm_password: STRONG2 });
    expect(await problemOf(mailCaller(h, { ip }).account.signIn({ email, password: STRONG2 }))).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
    });
  });

  it("counts every client's wrong codes in one account-wide cap, known devices' too", async () => {
    const config = { ...h.config, accountFailureCap: 8 };
    const account = await signUp(h);
    const { email } = account;
    // Browsers that became known devices of the account before it turned the second step on.
    const known = [];
    for (let i = 0; i < 2; i++) {
      const c = mailCaller(h, { ip: `203.0.113.${40 + i}` });
      await c.account.signIn({ email, password: STRONG });
      known.push({ ip: `203.0.113.${40 + i}`, device: c.devices[0]! });
    }
    const owner = mailCaller(h, { token: account.token, device: account.device });
    const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
    await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    const wrong = totpCode(secret, Date.now(), 1) === '000000' ? '111111' : '000000';
    const answers = [];
    for (const client of known) {
      const { pending } = await passwordStep(email, { ...client, config });
      for (let i = 0; i < 4; i++)
        answers.push((await problemOf(secondStep(pending, wrong, { ...client, config }).result)).code);
    }
    // The eighth wrong code reaches the cap: that pending sign-in ends.
    expect(answers).toEqual([...Array(7).fill('validation_failed'), 'too_many_codes']);
    // The owner's device is not locked out of its password by them, but its second step waits too.
    const mine = { ip: '203.0.113.50', device: account.device, config };
    const { problem, pending } = await passwordStep(email, mine);
    expect(problem).toMatchObject({ status: 401, code: 'second_factor_required' });
    const refused = await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1), mine).result);
    expect(refused).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(refused.retryAfter).toBeGreaterThan(3600);
    // A client that is no known device: its password is refused, as after as many wrong passwords.
    expect(
      await problemOf(mailCaller(h, { ip: '203.0.113.51', config }).account.signIn({ email, password: STRONG })),
    ).toMatchObject({ status: 429, code: 'too_many_attempts' });
  });

  it('a pending sign-in of one realm does not work in another', async () => {
    await h.realm('acme');
    const { email, secret } = await withTwoStep('acme');
    const { pending } = await passwordStep(email, { realm: 'acme' });
    expect(await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1)).result)).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
    // In its own realm it still does.
    await secondStep(pending, totpCode(secret, Date.now(), 1), { realm: 'acme' }).result;
  });

  it('a reset link neither signs in nor removes the second step, and voids sign-ins pending before it', async () => {
    const { email, secret } = await withTwoStep();
    const before = await passwordStep(email);
    await mailCaller(h).email.forgotPassword({ email });
    const token = await tokenFrom(h.db.db, email, 'reset_password');
    const reset = mailCaller(h);
    await reset.email.resetPassword({ token, new_password: STRONG2, confirm_password: STRONG2 });
    expect(reset.issued).toHaveLength(0);
    expect(await problemOf(secondStep(before.pending, totpCode(secret, Date.now(), 1)).result)).toMatchObject({
      status: 401,
      code: 'sign_in_expired',
    });
    const after = await problemOf(mailCaller(h).account.signIn({ email, password: STRONG2 }));
    expect(after).toMatchObject({ status: 401, code: 'second_factor_required' });
  });

  it('turning it off needs the password and a code; the secret and the recovery codes go', async () => {
    const { email, recoveryCodes, owner, user } = await withTwoStep();
    expect(await problemOf(owner.twoStep.disableTotp({ current_password: STRONG, code: '000000' }))).toMatchObject({
      status: 422,
      fields: { code: 'code_incorrect' },
    });
    expect(
      await problemOf(owner.twoStep.disableTotp({ current_password: 'not my password', code: recoveryCodes[0]! })),
    ).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    await owner.twoStep.disableTotp({ current_password: STRONG, code: recoveryCodes[0]! });
    expect((await owner.account.me()).twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    expect(await eventsOf(user.id)).toEqual(expect.arrayContaining(['two_step_enabled', 'two_step_disabled']));
    const c = mailCaller(h);
    await c.account.signIn({ email, password: STRONG });
    expect(c.issued).toHaveLength(1);
    expect(await problemOf(owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG }))).toMatchObject({
      status: 409,
      code: 'two_step_off',
    });
  });

  it('new recovery codes replace the old ones at once', async () => {
    const { email, recoveryCodes, owner } = await withTwoStep();
    const { recoveryCodes: fresh } = await owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG });
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[0]);
    expect(await problemOf(secondStep((await passwordStep(email)).pending, recoveryCodes[0]!).result)).toMatchObject({
      status: 422,
    });
    await secondStep((await passwordStep(email)).pending, fresh[0]!).result;
  });

  it('the database holds neither the secret nor a recovery code in any readable form', async () => {
    const { secret, recoveryCodes } = await withTwoStep();
    const hex = base32Decode(secret).toString('hex');
    const tables = await h.db.db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public'`,
    );
    const names = (Array.isArray(tables) ? tables : (tables as { rows: { table_name: string }[] }).rows).map(
      (r) => r.table_name,
    );
    expect(names).toEqual(expect.arrayContaining(['totp_credentials', 'recovery_codes']));
    let dump = '';
    for (const name of names) {
      const rows = await h.db.db.execute(sql`select t::text as row from ${sql.identifier(name)} t`);
      dump += JSON.stringify(rows);
    }
    expect(dump.length).toBeGreaterThan(1000);
    const lower = dump.toLowerCase();
    expect(lower).not.toContain(secret.toLowerCase());
    expect(lower).not.toContain(hex);
    for (const code of recoveryCodes) {
      expect(lower).not.toContain(code);
      expect(lower).not.toContain(code.replace('-', ''));
    }
  });

  it('keeps each recovery code as a salted bcrypt hash: a dump holds no digest of it that a key could look up', async () => {
    const { recoveryCodes: codes, user } = await withTwoStep();
    const rows = await h.db.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(row.digest).toMatch(/^bcrypt-hmac-sha256:[0-9a-f]{8}\$2[aby]\$04\$.{53}$/);
    // Salted: no two alike, and none of them is what SECRET_KEY alone makes of a code (a digest).
    expect(new Set(rows.map((r) => r.digest)).size).toBe(10);
    const stored = JSON.stringify(rows);
    for (const code of codes)
      for (const digest of h.vault.digests(`${user.id}\n${code.replace('-', '')}`))
        expect(stored).not.toContain(digest.split('.').at(-1));
  });

  it('a recovery code used twice at once completes one sign-in', async () => {
    const { email, recoveryCodes: codes, owner } = await withTwoStep();
    const ip = '198.51.100.61';
    const pendings = [(await passwordStep(email, { ip })).pending, (await passwordStep(email, { ip })).pending];
    const outcomes = await Promise.allSettled(pendings.map((pending) => secondStep(pending, codes[0]!, { ip }).result));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await owner.account.me()).twoStep.recoveryCodesLeft).toBe(9);
  });

  it('a code issued before codes were hashed (its digest kept) still works, once', async () => {
    const { email, user, owner } = await withTwoStep();
    // What earlier versions stored: the keyed digest alone, with or without the key's id.
    const old = ['0123456789', 'abcdefghjk'];
    await h.db.db.insert(recoveryCodes).values([
      { userId: user.id, digest: h.vault.digest(`${user.id}\n${old[0]}`) },
      { userId: user.id, digest: h.vault.digest(`${user.id}\n${old[1]}`).split('.')[1]! },
    ]);
    expect((await owner.account.me()).twoStep.recoveryCodesLeft).toBe(12);
    const ip = '198.51.100.62';
    for (const code of old) {
      await secondStep((await passwordStep(email, { ip })).pending, code, { ip }).result;
      expect(
        await problemOf(secondStep((await passwordStep(email, { ip })).pending, code, { ip }).result),
      ).toMatchObject({
        status: 422,
        fields: { code: 'code_incorrect' },
      });
    }
    expect((await owner.account.me()).twoStep.recoveryCodesLeft).toBe(10);
  });

  it('the operator reset turns it off, ends every session and is recorded', async () => {
    const { email, user, token } = await withTwoStep();
    const { wasOn, revoked } = await resetSecondStep(h.db.db, 'default', email, operatorMail(h));
    expect(wasOn).toBe(true);
    expect(revoked).toBeGreaterThanOrEqual(1);
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    expect(await problemOf(mailCaller(h, { token }).account.me())).toMatchObject({ status: 401 });
    expect(await eventsOf(user.id)).toContain('two_step_reset');
    const c = mailCaller(h);
    await c.account.signIn({ email, password: STRONG });
    expect(c.issued).toHaveLength(1);
  });

  it("the gate: no way into a session of such an account works without the second step's proof", async () => {
    const { user } = await withTwoStep();
    const { context } = testContext(h);
    const ctx = { ...(await context()), config: h.config };
    const [row] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    const check = {
      passed: async () => {},
      failed: async () => {},
      withdraw: async () => {},
      during: <T>(w: () => Promise<T>) => w(),
      standing: () => Promise.resolve({ left: 5, retryAfter: 0 }),
    };
    expect(await signInKnown(ctx, row!, check, { tokens: [], known: null })).toBeNull();
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });

  it('a secret that does not open under SECRET_KEY (the key changed) refuses the code, never a 500', async () => {
    const { email, secret } = await withTwoStep();
    const { pending } = await passwordStep(email);
    const kept = h.vault;
    h.vault = createVault(Buffer.from(newSecretKey(), 'hex'));
    try {
      expect(await problemOf(secondStep(pending, totpCode(secret, Date.now(), 1)).result)).toMatchObject({
        status: 422,
        fields: { code: 'code_incorrect' },
      });
    } finally {
      h.vault = kept;
    }
  });

  it('registration never asks for a second step', async () => {
    const c = mailCaller(h);
    await c.account.register({
      name: 'New',
      email: `new-${Date.now()}@example.com`,
      password: STRONG,
      password2: STRONG,
    });
    expect(c.issued).toHaveLength(1);
  });
});

// A hash made at an older cost is upgraded at the password step; the pending sign-in survives it
// (the password did not change, so the change time that voids pending sign-ins stays).
describe.each(testDrivers())('two-step sign-in with a cost upgrade on %s', (driver) => {
  const h = useHarness(driver, {}, 5);

  it('upgrades the hash at the password step and still completes with the code', async () => {
    const account = await signUp(h);
    const owner = mailCaller(h, { token: account.token });
    const { uri } = await owner.twoStep.setupTotp();
    const { secret } = parseOtpauth(uri);
    await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    const older = await createHasher({ cost: 4, pepper: 'test-pepper', workers: 1 });
    try {
      await h.db.db
        .update(users)
        .set({ passwordHash: await older.hash(STRONG) })
        .where(eq(users.id, account.user.id));
    } finally {
      await older.close();
    }
    const c = mailCaller(h);
    expect(await problemOf(c.account.signIn({ email: account.email, password: STRONG }))).toMatchObject({
      code: 'second_factor_required',
    });
    const [row] = await h.db.db.select().from(users).where(eq(users.id, account.user.id));
    expect(costOf(row!.passwordHash)).toBe(5);
    const done = mailCaller(h, { pending: c.pending.at(-1)! });
    await done.account.signInSecondStep({ code: totpCode(secret, Date.now(), 1) });
    expect(done.issued).toHaveLength(1);
  });
});
