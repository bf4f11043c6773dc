import { and, eq, sql } from 'drizzle-orm';
import { accountEvents, knownDevices, passkeys, recoveryCodes, sessions, totpCredentials } from '@accounts/db';
import { parseOtpauth, SoftAuthenticator, STRONG, testDrivers, totpCode } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../src/records/tokens.js';
import { mailCaller, signUp } from './email-harness.js';
import { problemOf, useHarness } from './harness.js';

// Authentication at the account's own level: binding a second factor (new recovery codes, a
// passkey, the authenticator app) and removing the last one ask for the password and, once
// two-step sign-in is on, a second factor proved in the same five minutes; turning two-step
// sign-in on ends every session and known device but the caller's.
describe.each(testDrivers())('authentication at the account level on %s', (driver) => {
  const h = useHarness(driver, { failureWindowMs: 60_000 });
  const origin = 'http://default.example.test';
  type Opts = Parameters<typeof mailCaller>[1];

  const eventsOf = async (userId: string) =>
    (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);
  const sessionIdsOf = async (userId: string) =>
    (await h.db.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId))).map((s) => s.id);
  const deviceKnown = async (device: string) =>
    (
      await h.db.db
        .select()
        .from(knownDevices)
        .where(eq(knownDevices.tokenHash, hashToken(device)))
    ).length === 1;
  const unusedCodes = async (userId: string) =>
    (
      await h.db.db
        .select({ id: recoveryCodes.id })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), sql`${recoveryCodes.usedAt} is null`))
    ).map((r) => r.id);
  /** Five minutes and a second later for every session of the account: proofs of both kinds have gone stale. */
  const later = (userId: string) =>
    h.db.db
      .update(sessions)
      .set({
        passwordCheckedAt: sql`now() - interval '301 seconds'`,
        factorCheckedAt: sql`now() - interval '301 seconds'`,
      })
      .where(eq(sessions.userId, userId));
  const recheckRequired = (field = 'code') => ({
    status: 422,
    code: 'validation_failed',
    fields: { [field]: 'second_factor_recheck_required' },
  });

  /** A signed-in caller of a new account, and a second session of it signed in elsewhere (its own device). */
  async function twoSessions() {
    const account = await signUp(h);
    const owner = mailCaller(h, { token: account.token, device: account.device });
    const elsewhere = mailCaller(h, { ip: '198.51.100.77' });
    await elsewhere.account.signIn({ email: account.email, password: STRONG });
    return {
      ...account,
      owner,
      other: { token: elsewhere.issued[0]!.token, device: elsewhere.devices[0]! },
    };
  }

  /** Turns the authenticator app on for `owner`: its secret and recovery codes. */
  async function appOn(owner: ReturnType<typeof mailCaller>) {
    const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
    const { recoveryCodes: codes } = await owner.twoStep.enableTotp({
      code: totpCode(secret),
      current_password: STRONG,
    });
    return { secret, codes };
  }

  /** Adds a passkey of `authenticator` for `owner`, giving what registrationOptions is given. */
  async function addPasskey(
    owner: ReturnType<typeof mailCaller>,
    authenticator: SoftAuthenticator,
    proof: { current_password?: string; code?: string } = {},
  ) {
    const options = await owner.passkeys.registrationOptions(proof);
    return owner.passkeys.add({ response: authenticator.create(options as never, origin) });
  }

  /** Signs in with the password and a recovery code as the second step: a session with a fresh factor. */
  async function secondStepSignIn(email: string, code: string, opts: Opts = {}) {
    const c = mailCaller(h, opts);
    await problemOf(c.account.signIn({ email, password: STRONG }));
    const step = mailCaller(h, { ...opts, pending: c.pending.at(-1)! });
    await step.account.signInSecondStep({ code });
    return mailCaller(h, { ...opts, token: step.issued[0]!.token, device: step.devices[0] });
  }

  it('turning the app on ends every other session and known device; the caller keeps its own', async () => {
    const { user, owner, token, device, other } = await twoSessions();
    expect(await sessionIdsOf(user.id)).toHaveLength(2);
    await appOn(owner);
    expect(await problemOf(mailCaller(h, { token: other.token }).account.me())).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    expect(await sessionIdsOf(user.id)).toHaveLength(1);
    expect((await mailCaller(h, { token }).account.me()).user.id).toBe(user.id);
    expect(await deviceKnown(device)).toBe(true);
    expect(await deviceKnown(other.device)).toBe(false);
    expect(await eventsOf(user.id)).toEqual(expect.arrayContaining(['two_step_enabled', 'sessions_revoked']));
  });

  it('the first passkey ends every other session and known device too; a second one ends none', async () => {
    const { user, owner, token, device, other } = await twoSessions();
    const authenticator = new SoftAuthenticator();
    await addPasskey(owner, authenticator);
    expect(await problemOf(mailCaller(h, { token: other.token }).account.me())).toMatchObject({ status: 401 });
    expect((await mailCaller(h, { token }).account.me()).twoStep.enabled).toBe(true);
    expect(await deviceKnown(device)).toBe(true);
    expect(await deviceKnown(other.device)).toBe(false);
    expect((await eventsOf(user.id)).filter((e) => e === 'sessions_revoked')).toHaveLength(1);

    // A session that went through the second step is not ended by another passkey.
    const [code] = (await owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG })).recoveryCodes;
    const second = await secondStepSignIn(user.email, code!, { ip: '198.51.100.78' });
    await addPasskey(owner, new SoftAuthenticator());
    expect((await second.account.me()).user.id).toBe(user.id);
    expect((await eventsOf(user.id)).filter((e) => e === 'sessions_revoked')).toHaveLength(1);
  });

  it('the session that binds the first factor has proved it: new codes right away need no code', async () => {
    const { owner } = await twoSessions();
    await appOn(owner);
    expect((await owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG })).recoveryCodes).toHaveLength(10);
  });

  it('new recovery codes: without a fresh factor 422 and nothing changes; a wrong code counts; a code works', async () => {
    const { user, owner } = await twoSessions();
    const { secret, codes } = await appOn(owner);
    await later(user.id);
    const before = await unusedCodes(user.id);
    expect(await problemOf(owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG }))).toMatchObject(
      recheckRequired(),
    );
    expect(await unusedCodes(user.id)).toEqual(before);
    // Asked before the password is checked: nothing is counted.
    expect(await eventsOf(user.id)).not.toContain('password_change_failed');

    expect(
      await problemOf(owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG, code: '000000' })),
    ).toMatchObject({ status: 422, fields: { code: 'code_incorrect' } });
    expect(await unusedCodes(user.id)).toEqual(before);
    expect(await eventsOf(user.id)).toContain('second_factor_failed');

    const made = await owner.twoStep.regenerateRecoveryCodes({
      current_password: STRONG,
      code: totpCode(secret, Date.now(), 1),
    });
    expect(made.recoveryCodes).toHaveLength(10);
    expect(await unusedCodes(user.id)).not.toContain(before[0]);
    // The code proved a factor: for five minutes the session needs none.
    await owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG });
    // An old recovery code is gone with the rest.
    expect(
      await problemOf(owner.twoStep.regenerateRecoveryCodes({ current_password: STRONG, code: codes[0]! })),
    ).toMatchObject({ status: 422, fields: { code: 'code_incorrect' } });
  });

  it('a sign-in through the second step within five minutes is the factor; after them it is not', async () => {
    const { user, owner, email } = await twoSessions();
    const { codes } = await appOn(owner);
    const fresh = await secondStepSignIn(email, codes[0]!, { ip: '198.51.100.79' });
    expect((await fresh.twoStep.regenerateRecoveryCodes({ current_password: STRONG })).recoveryCodes).toHaveLength(10);
    await later(user.id);
    expect(await problemOf(fresh.twoStep.regenerateRecoveryCodes({ current_password: STRONG }))).toMatchObject(
      recheckRequired(),
    );
  });

  it('adding a passkey to a two-step account: without a fresh factor 422 (both asks at once); with a code it works', async () => {
    const { user, owner } = await twoSessions();
    const { codes } = await appOn(owner);
    await later(user.id);
    expect(await problemOf(owner.passkeys.registrationOptions({}))).toMatchObject({
      status: 422,
      fields: { current_password: 'password_recheck_required', code: 'second_factor_recheck_required' },
    });
    expect(await problemOf(owner.passkeys.registrationOptions({ current_password: STRONG }))).toMatchObject(
      recheckRequired(),
    );
    expect(
      await problemOf(owner.passkeys.registrationOptions({ current_password: STRONG, code: 'aaaaa-bbbbb' })),
    ).toMatchObject({ status: 422, fields: { code: 'code_incorrect' } });
    expect(await h.db.db.select().from(passkeys).where(eq(passkeys.userId, user.id))).toEqual([]);
    expect(await eventsOf(user.id)).toContain('second_factor_failed');

    const added = await addPasskey(owner, new SoftAuthenticator(), { current_password: STRONG, code: codes[0]! });
    expect(added.passkey.name).toBeTruthy();
    // The app was on already: no codes come with it, and no session ends.
    expect(added.recoveryCodes).toBeUndefined();
    expect(await unusedCodes(user.id)).toHaveLength(9);
  });

  it('adding a passkey right after a sign-in through the second step needs neither password nor code', async () => {
    const { owner, email } = await twoSessions();
    const { codes } = await appOn(owner);
    const fresh = await secondStepSignIn(email, codes[0]!, { ip: '198.51.100.80' });
    await addPasskey(fresh, new SoftAuthenticator());
    expect((await fresh.passkeys.list()).passkeys).toHaveLength(1);
  });

  it('adding the app to a passkey account: without a fresh factor 422 on recovery_code and nothing changes; a recovery code or a passkey sign-in works', async () => {
    const { user, owner, email } = await twoSessions();
    const authenticator = new SoftAuthenticator();
    const { recoveryCodes: codes } = await addPasskey(owner, authenticator);
    await later(user.id);
    const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
    expect(
      await problemOf(owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG })),
    ).toMatchObject(recheckRequired('recovery_code'));
    const [app] = await h.db.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    expect(app!.secret).toBeNull();
    expect(app!.pendingSecret).not.toBeNull();
    expect(
      await problemOf(
        owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG, recovery_code: '123456' }),
      ),
    ).toMatchObject({ status: 422, fields: { recovery_code: 'recovery_code_format' } });
    expect(
      await problemOf(
        owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG, recovery_code: 'aaaaa-bbbbb' }),
      ),
    ).toMatchObject({ status: 422, fields: { recovery_code: 'code_incorrect' } });
    expect((await owner.account.me()).twoStep.methods).toEqual(['passkey', 'recovery_code']);

    await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG, recovery_code: codes![0]! });
    expect((await owner.account.me()).twoStep.methods).toEqual(['passkey', 'totp', 'recovery_code']);

    // Another account: a passkey sign-in is a fresh factor (the password it proves with the request).
    const second = await twoSessions();
    const key = new SoftAuthenticator();
    await addPasskey(second.owner, key);
    const c = mailCaller(h, { ip: '198.51.100.81' });
    await c.passkeys.signIn({ response: key.get(await c.passkeys.signInOptions(), origin) });
    const signedIn = mailCaller(h, { token: c.issued[0]!.token, device: c.devices[0] });
    const setup = parseOtpauth((await signedIn.twoStep.setupTotp()).uri);
    await signedIn.twoStep.enableTotp({ code: totpCode(setup.secret), current_password: STRONG });
    expect((await signedIn.account.me()).twoStep.methods).toContain('totp');
    expect(email).not.toBe(second.email);
  });

  it('removing the last passkey: the password alone is refused and nothing changes; with a code it goes', async () => {
    const { user, owner } = await twoSessions();
    const { passkey, recoveryCodes: codes } = await addPasskey(owner, new SoftAuthenticator());
    await later(user.id);
    expect(await problemOf(owner.passkeys.remove({ passkey_id: passkey.id, current_password: STRONG }))).toMatchObject(
      recheckRequired(),
    );
    expect(
      await problemOf(owner.passkeys.remove({ passkey_id: passkey.id, current_password: STRONG, code: 'aaaaa-bbbbb' })),
    ).toMatchObject({ status: 422, fields: { code: 'code_incorrect' } });
    expect((await owner.passkeys.list()).passkeys).toHaveLength(1);
    expect((await owner.account.me()).twoStep.enabled).toBe(true);
    expect(await eventsOf(user.id)).not.toContain('passkey_removed');

    await owner.passkeys.remove({ passkey_id: passkey.id, current_password: STRONG, code: codes![0]! });
    expect((await owner.account.me()).twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    expect(await eventsOf(user.id)).toContain('passkey_removed');
  });

  it('removing a passkey that is not the last factor needs the password only', async () => {
    const { user, owner } = await twoSessions();
    const first = await addPasskey(owner, new SoftAuthenticator());
    await addPasskey(owner, new SoftAuthenticator());
    await later(user.id);
    await owner.passkeys.remove({ passkey_id: first.passkey.id, current_password: STRONG });
    expect((await owner.passkeys.list()).passkeys).toHaveLength(1);
  });

  it('a signed-in session confirms a passkey: its factor for five minutes; a wrong assertion counts', async () => {
    const { user, owner } = await twoSessions();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await addPasskey(owner, authenticator);
    await later(user.id);
    expect(await problemOf(owner.passkeys.remove({ passkey_id: passkey.id, current_password: STRONG }))).toMatchObject(
      recheckRequired(),
    );
    const refused = authenticator.get(await owner.passkeys.recheckOptions(), 'http://evil.example.test');
    expect(await problemOf(owner.passkeys.recheck({ response: refused }))).toMatchObject({
      status: 422,
      code: 'passkey_rejected',
    });
    expect(await eventsOf(user.id)).toContain('second_factor_failed');
    const response = authenticator.get(await owner.passkeys.recheckOptions(), origin);
    expect(await owner.passkeys.recheck({ response })).toEqual({ ok: true });
    // Used once.
    expect(await problemOf(owner.passkeys.recheck({ response }))).toMatchObject({
      status: 400,
      code: 'passkey_challenge_invalid',
    });
    await owner.passkeys.remove({ passkey_id: passkey.id, current_password: STRONG });
    expect((await owner.account.me()).twoStep.enabled).toBe(false);
    // Off: nothing to confirm.
    expect(await problemOf(owner.passkeys.recheckOptions())).toMatchObject({ status: 409, code: 'two_step_off' });
  });

  it("another account's passkey confirms nothing", async () => {
    const a = await twoSessions();
    const b = await twoSessions();
    await addPasskey(a.owner, new SoftAuthenticator());
    const theirs = new SoftAuthenticator();
    await addPasskey(b.owner, theirs);
    const options = await a.owner.passkeys.recheckOptions();
    expect(await problemOf(a.owner.passkeys.recheck({ response: theirs.get(options, origin) }))).toMatchObject({
      status: 422,
      code: 'passkey_rejected',
    });
  });
});
