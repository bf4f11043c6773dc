import { eq, sql } from 'drizzle-orm';
import { accountEvents, sessions, webauthnChallenges } from '@accounts/db';
import { parseOtpauth, SoftAuthenticator, STRONG, testDrivers, totpCode } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { mailCaller, operatorMail, signUp } from './email-harness.js';
import { problemOf, useHarness } from './harness.js';

// Passkeys on the procedures, with a software authenticator: adding one, signing in with it alone,
// the second step done with it, and the ceremonies' rules (challenges, origin, RP ID, counter).
describe.each(testDrivers())('passkeys on %s', (driver) => {
  const h = useHarness(driver, { failureWindowMs: 60_000 });
  const origin = (realm = 'default') => `http://${realm}.example.test`;

  const eventsOf = async (userId: string) =>
    (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);

  /** An account with a passkey on `authenticator`, and the owner's caller. */
  async function withPasskey(authenticator = new SoftAuthenticator(), realm = 'default') {
    const account = await signUp(h, realm);
    const owner = mailCaller(h, { realm, token: account.token, device: account.device });
    const options = await owner.passkeys.registrationOptions({});
    const added = await owner.passkeys.add({ response: authenticator.create(options as never, origin(realm)) });
    return { ...account, owner, authenticator, added };
  }

  const passkeySignIn = async (authenticator: SoftAuthenticator, opts: Parameters<typeof mailCaller>[1] = {}) => {
    const c = mailCaller(h, opts);
    const options = await c.passkeys.signInOptions();
    const response = authenticator.get(options, origin(opts.realm));
    return { c, response, result: c.passkeys.signIn({ response }) };
  };

  it('offers Ed25519, P-256 and RSA keys, whatever the runtime supports besides', async () => {
    const account = await signUp(h, 'default');
    const owner = mailCaller(h, { realm: 'default', token: account.token, device: account.device });
    const options = await owner.passkeys.registrationOptions({});
    expect(options.pubKeyCredParams).toEqual([-8, -7, -257].map((alg) => ({ type: 'public-key', alg })));
  });

  it('adds a discoverable passkey: listed with its name, and the first one turns two-step on with recovery codes', async () => {
    const { owner, added, authenticator } = await withPasskey(
      new SoftAuthenticator({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd' }),
    );
    expect(added.passkey).toMatchObject({ name: 'iCloud Keychain', kind: 'iCloud Keychain', lastUsedAt: null });
    expect(added.recoveryCodes).toHaveLength(10);
    const { passkeys } = await owner.passkeys.list();
    expect(passkeys.map((p) => p.id)).toEqual([added.passkey.id]);
    expect((await owner.account.me()).twoStep).toEqual({
      enabled: true,
      methods: ['passkey', 'recovery_code'],
      recoveryCodesLeft: 10,
    });
    // A second passkey keeps the codes.
    const second = await owner.passkeys.add({
      response: authenticator.create((await owner.passkeys.registrationOptions({})) as never, origin()),
      name: 'Laptop',
    });
    expect(second.recoveryCodes).toBeUndefined();
    expect(second.passkey.name).toBe('Laptop');
    await owner.passkeys.rename({ passkey_id: second.passkey.id, name: 'Work laptop' });
    expect((await owner.passkeys.list()).passkeys.map((p) => p.name)).toEqual(['iCloud Keychain', 'Work laptop']);
  });

  it('signs in with the passkey alone: a complete sign-in, whose session must prove the password to add another', async () => {
    const { authenticator, user } = await withPasskey();
    const { c, result } = await passkeySignIn(authenticator, { ip: '198.51.100.30' });
    expect((await result).user.id).toBe(user.id);
    expect(c.issued).toHaveLength(1);
    expect(c.devices).toHaveLength(1);
    expect(await eventsOf(user.id)).toContain('signed_in');
    const session = mailCaller(h, { token: c.issued[0]!.token });
    expect((await session.passkeys.list()).passkeys[0]!.lastUsedAt).toBeInstanceOf(Date);
    expect(await problemOf(session.passkeys.registrationOptions({}))).toMatchObject({
      status: 422,
      fields: { current_password: 'password_recheck_required' },
    });
    expect(
      await problemOf(session.passkeys.registrationOptions({ current_password: 'not my password' })),
    ).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    await session.passkeys.registrationOptions({ current_password: STRONG });
    // Proved just now: the next one needs no password.
    await session.passkeys.registrationOptions({});
  });

  it('asks a password sign-in for the second step, which the passkey completes', async () => {
    const { authenticator, email, user } = await withPasskey();
    const c = mailCaller(h);
    const problem = await problemOf(c.account.signIn({ email, password: STRONG }));
    expect(problem).toMatchObject({
      status: 401,
      code: 'second_factor_required',
      methods: ['passkey', 'recovery_code'],
    });
    const pending = c.pending.at(-1)!;
    const step = mailCaller(h, { pending });
    const options = await step.passkeys.secondStepOptions({});
    expect(options.allowCredentials).toHaveLength(1);
    const { user: signedIn } = await step.passkeys.secondStep({
      response: authenticator.get(options, origin()),
    });
    expect(signedIn.id).toBe(user.id);
    expect(step.issued).toHaveLength(1);
    // User verification is preferred, not required, for the second step.
  });

  it('refuses a replayed and an expired challenge', async () => {
    const { authenticator } = await withPasskey();
    const first = await passkeySignIn(authenticator);
    await first.result;
    expect(await problemOf(mailCaller(h).passkeys.signIn({ response: first.response }))).toMatchObject({
      status: 400,
      code: 'passkey_challenge_invalid',
    });
    const c = mailCaller(h);
    const options = await c.passkeys.signInOptions();
    await h.db.db
      .update(webauthnChallenges)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(webauthnChallenges.challenge, options.challenge));
    expect(
      await problemOf(c.passkeys.signIn({ response: authenticator.get(options as never, origin()) })),
    ).toMatchObject({
      status: 400,
      code: 'passkey_challenge_invalid',
    });
  });

  it('a request with no configured origin gets 503 origin_unknown for every ceremony, never one for another host', async () => {
    const { token } = await withPasskey();
    const originless = h.caller({ origin: null, token });
    for (const call of [originless.passkeys.signInOptions(), originless.passkeys.registrationOptions({})])
      expect(await problemOf(call)).toMatchObject({ status: 503, code: 'origin_unknown' });
  });

  it('refuses another origin, another RP ID, an unknown credential and a passkey without user verification', async () => {
    const { authenticator } = await withPasskey();
    const attempt = async (make: (options: never) => unknown) => {
      const c = mailCaller(h);
      const options = await c.passkeys.signInOptions();
      return problemOf(c.passkeys.signIn({ response: make(options as never) as never }));
    };
    const rejected = { status: 422, code: 'passkey_rejected' };
    expect(await attempt((o) => authenticator.get(o, 'http://evil.example.test'))).toMatchObject(rejected);
    expect(await attempt((o) => authenticator.get(o, origin(), { rpId: 'evil.example.test' }))).toMatchObject(rejected);
    const stranger = new SoftAuthenticator();
    stranger.create(
      { challenge: 'x', rp: { id: 'default.example.test', name: 'x' }, user: { id: 'aGFuZGxl', name: 'x' } },
      origin(),
    );
    expect(await attempt((o) => stranger.get(o, origin()))).toMatchObject(rejected);
    const { authenticator: unverified } = await withPasskey(new SoftAuthenticator({ userVerified: false }));
    expect(await attempt((o) => unverified.get(o, origin()))).toMatchObject(rejected);
  });

  it('refuses a counter that went backwards, and records it', async () => {
    const { authenticator, user } = await withPasskey();
    await (
      await passkeySignIn(authenticator)
    ).result;
    const c = mailCaller(h);
    const options = await c.passkeys.signInOptions();
    const response = authenticator.get(options, origin(), { counter: 1 });
    expect(await problemOf(c.passkeys.signIn({ response }))).toMatchObject({ status: 422, code: 'passkey_rejected' });
    expect(await eventsOf(user.id)).toContain('passkey_counter_regressed');
  });

  it('raises no cloned-authenticator alarm for a low counter whose signature does not hold', async () => {
    const { authenticator, user, email } = await withPasskey();
    await (
      await passkeySignIn(authenticator)
    ).result;
    /** An assertion with a counter that went back, its signature made by no key of the account. */
    const forged = (options: never) => {
      const response = authenticator.get(options, origin(), { counter: 1 });
      const signature = Buffer.from(response.response.signature, 'base64url');
      signature[signature.length - 1]! ^= 0xff;
      return { ...response, response: { ...response.response, signature: signature.toString('base64url') } };
    };
    // A sign-in with the passkey alone, and the second step of a password sign-in.
    const c = mailCaller(h);
    const signIn = c.passkeys.signIn({ response: forged((await c.passkeys.signInOptions()) as never) });
    expect(await problemOf(signIn)).toMatchObject({ status: 422, code: 'passkey_rejected' });
    const password = mailCaller(h);
    await problemOf(password.account.signIn({ email, password: STRONG }));
    const step = mailCaller(h, { pending: password.pending.at(-1)! });
    const options = await step.passkeys.secondStepOptions({});
    expect(await problemOf(step.passkeys.secondStep({ response: forged(options as never) }))).toMatchObject({
      status: 422,
      code: 'passkey_rejected',
    });
    expect(await eventsOf(user.id)).not.toContain('passkey_counter_regressed');
  });

  it("a realm's passkey does not work in another realm", async () => {
    await h.realm('acme');
    const { authenticator } = await withPasskey(new SoftAuthenticator(), 'acme');
    const c = mailCaller(h);
    const options = await c.passkeys.signInOptions();
    // Signed for acme's RP ID and origin, or for the default's: neither passes here.
    expect(
      await problemOf(
        c.passkeys.signIn({
          response: authenticator.get(options as never, origin('acme'), { rpId: 'acme.example.test' }),
        }),
      ),
    ).toMatchObject({ status: 422, code: 'passkey_rejected' });
    const again = await c.passkeys.signInOptions();
    expect(
      await problemOf(
        c.passkeys.signIn({ response: authenticator.get(again as never, origin(), { rpId: 'default.example.test' }) }),
      ),
    ).toMatchObject({ status: 422, code: 'passkey_rejected' });
  });

  it('counts failed assertions in the lockout per client', async () => {
    const { authenticator } = await withPasskey();
    const ip = '198.51.100.40';
    for (let i = 0; i < 5; i++) {
      const c = mailCaller(h, { ip });
      const options = await c.passkeys.signInOptions();
      expect(
        await problemOf(
          c.passkeys.signIn({ response: authenticator.get(options as never, 'http://evil.example.test') }),
        ),
      ).toMatchObject({ code: 'passkey_rejected' });
    }
    expect(await problemOf((await passkeySignIn(authenticator, { ip })).result)).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
    });
    // Another client is not refused.
    await (
      await passkeySignIn(authenticator, { ip: '198.51.100.41' })
    ).result;
  });

  it('removing the last passkey (password required) turns the step off; the app keeps it on', async () => {
    const { owner, added, email, authenticator } = await withPasskey();
    expect(
      await problemOf(owner.passkeys.remove({ passkey_id: added.passkey.id, current_password: 'nope nope' })),
    ).toMatchObject({
      status: 422,
      fields: { current_password: 'password_incorrect' },
    });
    expect(
      await problemOf(
        owner.passkeys.remove({ passkey_id: '00000000-0000-0000-0000-000000000000', current_password: STRONG }),
      ),
    ).toMatchObject({ status: 404 });
    // With the app on too, removing the passkey keeps the second step.
    const { uri } = await owner.twoStep.setupTotp();
    const { secret } = parseOtpauth(uri);
    await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    await owner.passkeys.remove({ passkey_id: added.passkey.id, current_password: STRONG });
    expect((await owner.account.me()).twoStep).toMatchObject({ enabled: true, methods: ['totp', 'recovery_code'] });
    await owner.twoStep.disableTotp({ current_password: STRONG, code: totpCode(secret, Date.now(), 1) });
    expect((await owner.account.me()).twoStep).toEqual({ enabled: false, methods: [], recoveryCodesLeft: 0 });
    const c = mailCaller(h);
    await c.account.signIn({ email, password: STRONG });
    expect(c.issued).toHaveLength(1);
    // A removed passkey no longer signs in.
    expect(await problemOf((await passkeySignIn(authenticator)).result)).toMatchObject({ code: 'passkey_rejected' });
  });

  it('the operator reset removes passkeys too', async () => {
    const { owner, user } = await withPasskey();
    const { resetSecondStep } = await import('../src/operator/accounts.js');
    await resetSecondStep(h.db.db, 'default', (await owner.account.me()).user.email, operatorMail(h));
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    const relogged = mailCaller(h);
    await relogged.account.signIn({
      email: (await h.db.db.query.users.findFirst({ where: (u, { eq: e }) => e(u.id, user.id) }))!.email,
      password: STRONG,
    });
    expect(relogged.issued).toHaveLength(1);
  });
});
