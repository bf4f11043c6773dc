import { and, eq } from 'drizzle-orm';
import { knownDevices, users } from '@accounts/db';
import { STRONG, STRONG2, testDrivers } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../src/records/tokens.js';
import { problemOf, useHarness } from './harness.js';
import { mailCaller, mailsTo, signUp, tokenFrom } from './email-harness.js';

const STRONG3 = 'copper meadow whistles under rain';

// Recovery takes the account back: a reset ends every known device of the account, a password
// change all but the caller's, so an intruder's browser loses the lockout's and the notices'
// trust in it. Mailed links are looked at without being used up.
describe.each(testDrivers())('recovery on %s', (driver) => {
  // A failure window far longer than any test, so counts never expire mid-test.
  const h = useHarness(driver, { failureWindowMs: 60_000 });
  const wrongGuesses = async (email: string, ip: string) => {
    for (let i = 0; i < 5; i++)
      expect(
        (await problemOf(mailCaller(h, { ip }).account.signIn({ email, password: `wrong guess ${i}` }))).status,
      ).toBe(422);
  };
  const signInOn = async (email: string, password: string, opts: { ip: string; device?: string }) => {
    const c = mailCaller(h, opts);
    await c.account.signIn({ email, password });
    return { token: c.issued[0]!.token, device: c.devices[0]! };
  };
  const devicesOf = async (userId: string) =>
    (await h.db.db.select().from(knownDevices).where(eq(knownDevices.userId, userId))).map((d) => d.tokenHash);
  const resetLink = async (email: string) => {
    await mailCaller(h).email.forgotPassword({ email });
    return tokenFrom(h.db.db, email, 'reset_password');
  };

  it('a reset ends every known device of the account: an old credential no longer skips the lockout or the new-sign-in notice', async () => {
    const { email, user, device: owner } = await signUp(h);
    const intruder = await signInOn(email, STRONG, { ip: '198.51.100.80' });
    expect(await devicesOf(user.id)).toHaveLength(2);

    const token = await resetLink(email);
    await mailCaller(h, { ip: '198.51.100.81' }).email.resetPassword({
      token,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(await devicesOf(user.id)).toEqual([]);

    // The intruder's browser now counts as its address: another address's failures do not matter,
    // its own address's do.
    await wrongGuesses(email, '198.51.100.82');
    expect(
      await problemOf(
        mailCaller(h, { ip: '198.51.100.82', device: intruder.device }).account.signIn({ email, password: STRONG2 }),
      ),
    ).toMatchObject({ status: 429, code: 'too_many_attempts' });
    // The owner signing in again is a new sign-in: the notice goes out, and the browser is known anew.
    const notices = (await mailsTo(h.db.db, email, 'new_sign_in')).length;
    const again = await signInOn(email, STRONG2, { ip: '198.51.100.83', device: owner });
    expect(await mailsTo(h.db.db, email, 'new_sign_in')).toHaveLength(notices + 1);
    expect(again.device.split('.')).toHaveLength(2);
    expect(await devicesOf(user.id)).toEqual([hashToken(again.device.split('.')[0]!)]);
  });

  it('a reset does not sign the client in: every session ends, the one it presented too, and its cookie is cleared', async () => {
    const { email, user, token: session, device } = await signUp(h);
    const other = await signInOn(email, STRONG, { ip: '198.51.100.90' });
    const token = await resetLink(email);
    const c = mailCaller(h, { token: session, device });
    expect(await c.email.resetPassword({ token, new_password: STRONG2, confirm_password: STRONG2 })).toEqual({
      ok: true,
      sessionsRevoked: 2,
      email,
    });
    expect(c.issued).toEqual([]);
    expect(c.devices).toEqual([]);
    expect(c.cleared).toBe(1);
    for (const t of [session, other.token])
      expect(await problemOf(mailCaller(h, { token: t }).account.me())).toMatchObject({
        status: 401,
        code: 'unauthenticated',
      });
    // Following the link proved the address; the new password signs in.
    await expect(mailCaller(h).account.signIn({ email, password: STRONG2 })).resolves.toMatchObject({
      user: { id: user.id, emailVerified: true },
    });

    // A client without a session is told the same, and nothing is cleared for it.
    const second = await signUp(h);
    const fresh = mailCaller(h);
    expect(
      await fresh.email.resetPassword({
        token: await resetLink(second.email),
        new_password: STRONG3,
        confirm_password: STRONG3,
      }),
    ).toEqual({ ok: true, sessionsRevoked: 1, email: second.email });
    expect(fresh.cleared).toBe(0);
  });

  it("a password change ends the other devices' credentials and keeps the caller's", async () => {
    const { email, user, token: session, device: mine } = await signUp(h);
    const other = await signInOn(email, STRONG, { ip: '198.51.100.100' });
    await mailCaller(h, { token: session, device: mine }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(await devicesOf(user.id)).toEqual([hashToken(mine)]);

    await wrongGuesses(email, '198.51.100.101');
    // The caller's browser is still known: the address's failures do not refuse it, and no notice.
    const notices = (await mailsTo(h.db.db, email, 'new_sign_in')).length;
    await expect(
      mailCaller(h, { ip: '198.51.100.101', device: mine }).account.signIn({ email, password: STRONG2 }),
    ).resolves.toBeTruthy();
    expect(await mailsTo(h.db.db, email, 'new_sign_in')).toHaveLength(notices);
    // The other browser is not.
    expect(
      await problemOf(
        mailCaller(h, { ip: '198.51.100.101', device: other.device }).account.signIn({ email, password: STRONG2 }),
      ),
    ).toMatchObject({ status: 429, code: 'too_many_attempts' });
  });

  it('a password change from a client without a known device ends every known device of the account', async () => {
    const { email, user, token: session } = await signUp(h);
    await signInOn(email, STRONG, { ip: '198.51.100.110' });
    await mailCaller(h, { token: session }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(await devicesOf(user.id)).toEqual([]);
  });

  it('answers what a verification link would confirm, any number of times, without using it up', async () => {
    await h.realm('acme');
    const { email, token: session, user } = await signUp(h, 'acme');
    const token = await tokenFrom(h.db.db, email, 'verify_email');
    const acme = () => mailCaller(h, { realm: 'acme' });
    for (let i = 0; i < 2; i++)
      await expect(acme().email.verificationLink({ token })).resolves.toEqual({ email, realmName: 'Realm acme' });
    expect((await mailCaller(h, { realm: 'acme', token: session }).account.me()).user.emailVerified).toBe(false);
    const [row] = await h.db.db
      .select({ at: users.emailVerifiedAt })
      .from(users)
      .where(and(eq(users.id, user.id)));
    expect(row!.at).toBeNull();

    // Any token that would not confirm: the verification's own error.
    const invalid = { status: 400, code: 'verify_token_invalid', fields: { token: 'verify_token_invalid' } };
    expect(await problemOf(mailCaller(h).email.verificationLink({ token }))).toMatchObject(invalid);
    expect(await problemOf(acme().email.verificationLink({ token: 'A'.repeat(43) }))).toMatchObject(invalid);
    expect(await problemOf(acme().email.verificationLink({ token: 'x'.repeat(300) }))).toMatchObject({
      status: 422,
      fields: { token: 'verify_token_invalid' },
    });
    expect(await problemOf(acme().email.verificationLink({ token: '' }))).toMatchObject({
      status: 422,
      fields: { token: 'required' },
    });
    await acme().email.forgotPassword({ email });
    expect(
      await problemOf(acme().email.verificationLink({ token: await tokenFrom(h.db.db, email, 'reset_password') })),
    ).toMatchObject(invalid);

    // Confirming is the mutation's, once.
    await expect(acme().email.verifyEmail({ token })).resolves.toEqual({ ok: true, emailVerified: true });
    expect(await problemOf(acme().email.verificationLink({ token }))).toMatchObject(invalid);
  });
});
