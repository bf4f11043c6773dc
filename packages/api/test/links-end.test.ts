import { eq } from 'drizzle-orm';
import { users } from '@accounts/db';
import { parseOtpauth, STRONG, STRONG2, testDrivers, totpCode, uniqueEmail } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { disableAccount, enableAccount, resetSecondStep, revokeAccountSessions } from '../src/operator/accounts.js';
import { mailCaller, mailsTo, operatorMail, signUp, tokenFrom } from './email-harness.js';
import { problemOf, useHarness } from './harness.js';

// A mailed link is bound to the credentials it was granted under: a password reset or change, a
// second factor turned on or off, and the operator's disable, revoke-sessions and
// reset-second-factor end every outstanding link of the account (change of address, reset,
// verification), so a link kept from before a recovery never works after it.
describe.each(testDrivers())('mailed links after a security change on %s', (driver) => {
  // Room for the few links one test asks for to one address (the cap has tests of its own).
  const h = useHarness(driver, { failureWindowMs: 60_000, mailCap: { requested: 10, caused: 10, windowMs: 600_000 } });

  /** An owner with a confirmed address, and an intruder signed in with the same password who asked to move the account. */
  const takeoverUnderWay = async () => {
    const account = await signUp(h);
    await h.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, account.user.id));
    const signingIn = mailCaller(h, { ip: '198.51.100.66' });
    await signingIn.account.signIn({ email: account.email, password: STRONG });
    const intruder = mailCaller(h, { ip: '198.51.100.66', token: signingIn.issued[0]!.token });
    const mailbox = uniqueEmail('intruder');
    await intruder.emailChange.request({ new_email: mailbox, current_password: STRONG });
    const [mail] = await mailsTo(h.db.db, mailbox, 'confirm_email_change');
    const link = new URL((mail!.payload as { link: string }).link).searchParams.get('token')!;
    const owner = mailCaller(h, { token: account.token, device: account.device });
    return { ...account, owner, intruder, mailbox, link };
  };
  const refused = async (link: string) =>
    expect(await problemOf(mailCaller(h).emailChange.confirm({ token: link }))).toMatchObject({
      status: 400,
      code: 'email_change_token_invalid',
    });

  it('a password reset ends a change of address asked for before it, and the notice says so', async () => {
    const { email, owner, link, mailbox } = await takeoverUnderWay();
    const [notice] = await mailsTo(h.db.db, email, 'email_change_requested');
    expect(notice).toBeDefined();
    await mailCaller(h).email.forgotPassword({ email });
    const reset = await tokenFrom(h.db.db, email, 'reset_password');
    await mailCaller(h).email.resetPassword({ token: reset, new_password: STRONG2, confirm_password: STRONG2 });
    // The intruder's kept link: dead, shown as such, and the account keeps its address.
    expect(await problemOf(mailCaller(h).emailChange.link({ token: link }))).toMatchObject({
      code: 'email_change_token_invalid',
    });
    await refused(link);
    const signingIn = mailCaller(h);
    await signingIn.account.signIn({ email, password: STRONG2 });
    const signedIn = mailCaller(h, { token: signingIn.issued[0]!.token });
    expect((await signedIn.emailChange.pending()).pending).toBeNull();
    expect((await signedIn.account.me()).user.email).toBe(email);
    expect(await problemOf(mailCaller(h).account.signIn({ email: mailbox, password: STRONG2 }))).toMatchObject({
      status: 422,
    });
    void owner;
  });

  it('a password change ends every outstanding link: change of address, reset and verification', async () => {
    const { email, owner, link } = await takeoverUnderWay();
    await mailCaller(h).email.forgotPassword({ email });
    const reset = await tokenFrom(h.db.db, email, 'reset_password');
    await h.db.db.update(users).set({ emailVerifiedAt: null }).where(eq(users.email, email));
    await owner.email.resendVerification();
    const verify = await tokenFrom(h.db.db, email, 'verify_email');
    await owner.account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    await refused(link);
    expect(
      await problemOf(
        mailCaller(h).email.resetPassword({ token: reset, new_password: STRONG, confirm_password: STRONG }),
      ),
    ).toMatchObject({ code: 'reset_token_invalid' });
    expect(await problemOf(mailCaller(h).email.verifyEmail({ token: verify }))).toMatchObject({
      code: 'verify_token_invalid',
    });
    // A link granted after the change works (the change rotated the owner's session token).
    await mailCaller(h, { token: owner.issued.at(-1)!.token }).email.resendVerification();
    const fresh = await tokenFrom(h.db.db, email, 'verify_email');
    await expect(mailCaller(h).email.verifyEmail({ token: fresh })).resolves.toMatchObject({ ok: true });
  });

  it('turning the authenticator app on ends a change of address asked for before it', async () => {
    const { owner, link } = await takeoverUnderWay();
    const setup = await owner.twoStep.setupTotp();
    const { secret } = parseOtpauth(setup.uri);
    await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    await refused(link);
  });

  it.each([
    [
      'disable',
      (email: string) =>
        disableAccount(h.db.db, 'default', email, operatorMail(h)).then(() => enableAccount(h.db.db, 'default', email)),
    ],
    ['revoke-sessions', (email: string) => revokeAccountSessions(h.db.db, 'default', email)],
    ['reset-second-factor', (email: string) => resetSecondStep(h.db.db, 'default', email, operatorMail(h))],
  ])("the operator's %s ends a change of address asked for before it", async (_name, act) => {
    const { email, link } = await takeoverUnderWay();
    await act(email);
    await refused(link);
  });

  it('a change of address asked for by a session that turning two-step on ends, at the same moment, never works', async () => {
    for (let round = 0; round < 12; round++) {
      const account = await signUp(h);
      const signingIn = mailCaller(h, { ip: '198.51.100.67' });
      await signingIn.account.signIn({ email: account.email, password: STRONG });
      const intruder = mailCaller(h, { ip: '198.51.100.67', token: signingIn.issued[0]!.token });
      const owner = mailCaller(h, { token: account.token, device: account.device });
      const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
      const mailbox = uniqueEmail('racer');
      const [asked, enabled] = await Promise.allSettled([
        intruder.emailChange.request({ new_email: mailbox, current_password: STRONG }),
        owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG }),
      ]);
      const [mail] = await mailsTo(h.db.db, mailbox, 'confirm_email_change');
      if (asked.status === 'rejected' || enabled.status === 'rejected' || !mail) continue;
      await refused(new URL((mail.payload as { link: string }).link).searchParams.get('token')!);
    }
  });

  it('a link asked for after the change works', async () => {
    const { email, owner, link } = await takeoverUnderWay();
    await revokeAccountSessions(h.db.db, 'default', email);
    await refused(link);
    const signingIn = mailCaller(h);
    await signingIn.account.signIn({ email, password: STRONG });
    const again = mailCaller(h, { token: signingIn.issued[0]!.token });
    const next = uniqueEmail('after');
    await again.emailChange.request({ new_email: next, current_password: STRONG });
    const [mail] = await mailsTo(h.db.db, next, 'confirm_email_change');
    const fresh = new URL((mail!.payload as { link: string }).link).searchParams.get('token')!;
    await expect(mailCaller(h).emailChange.confirm({ token: fresh })).resolves.toEqual({ ok: true, email: next });
    void owner;
  });
});
