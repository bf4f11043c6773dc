import { eq, sql } from 'drizzle-orm';
import { accountEvents, accountTokens, mailOutbox, realms, users } from '@accounts/db';
import { STRONG, STRONG2, testDrivers, uniqueEmail } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { renderMail } from '../src/mail/templates.js';
import { FORGOT_PASSWORD_MIN_MS } from '../src/passwords/procedures.js';
import { problemOf, useHarness } from './harness.js';
import { mailCaller, mailsTo, signUp, tokenFrom } from './email-harness.js';

const STRONG3 = 'copper meadow whistles under rain';

describe.each(testDrivers())('mail flows on %s', (driver) => {
  // The cap on mail to one address has its own tests (mail-cap.test.ts); here it is off.
  const h = useHarness(driver, { mailCap: { requested: 0, caused: 0, windowMs: 600_000 } });

  it('registration queues a verification link on the realm origin; the link confirms the address once', async () => {
    await h.realm('acme');
    const { email, token } = await signUp(h, 'acme');
    const [mail] = await mailsTo(h.db.db, email, 'verify_email');
    expect(mail).toMatchObject({ locale: 'en', attempts: 0, sentAt: null });
    const link = (mail!.payload as { link: string }).link;
    expect(link).toMatch(/^http:\/\/acme\.example\.test\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
    expect((mail!.payload as { realmName: string }).realmName).toBe('Realm acme');
    const me = mailCaller(h, { realm: 'acme', token });
    expect((await me.account.me()).user.emailVerified).toBe(false);
    const verifyToken = await tokenFrom(h.db.db, email, 'verify_email');
    // Only the digest is stored.
    expect(await h.db.db.select().from(accountTokens).where(eq(accountTokens.tokenHash, verifyToken))).toHaveLength(0);
    // Another realm's host does not accept it.
    expect(await problemOf(mailCaller(h).email.verifyEmail({ token: verifyToken }))).toMatchObject({
      status: 400,
      code: 'verify_token_invalid',
      fields: { token: 'verify_token_invalid' },
    });
    await expect(mailCaller(h, { realm: 'acme' }).email.verifyEmail({ token: verifyToken })).resolves.toEqual({
      ok: true,
      emailVerified: true,
    });
    expect((await me.account.me()).user.emailVerified).toBe(true);
    expect(await problemOf(mailCaller(h, { realm: 'acme' }).email.verifyEmail({ token: verifyToken }))).toMatchObject({
      status: 400,
      code: 'verify_token_invalid',
    });
    expect(await problemOf(mailCaller(h).email.verifyEmail({ token: '' }))).toMatchObject({
      status: 422,
      fields: { token: 'required' },
    });
  });

  it('answers a reset request alike for known and unknown addresses, and queues a mail only for an account', async () => {
    const { email } = await signUp(h);
    const nobody = uniqueEmail('nobody');
    const timed = async (address: string) => {
      const t0 = performance.now();
      const answer = await mailCaller(h).email.forgotPassword({ email: address });
      // Both wait out the same floor (a timer may fire a millisecond early); how alike the times are is the benchmark's to measure.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(FORGOT_PASSWORD_MIN_MS - 1);
      return answer;
    };
    const known = await timed(email);
    const unknown = await timed(nobody);
    expect(known).toEqual(unknown);
    expect(known).toEqual({ ok: true });
    expect(await mailsTo(h.db.db, email, 'reset_password')).toHaveLength(1);
    expect(await mailsTo(h.db.db, nobody)).toHaveLength(0);
    expect(await problemOf(mailCaller(h).email.forgotPassword({ email: 'not an address' }))).toMatchObject({
      status: 422,
      fields: { email: 'invalid_email' },
    });
  });

  it('resets the password: old password and every session end, nobody is signed in, the link works once', async () => {
    const { email, token: oldSession, user } = await signUp(h);
    await mailCaller(h).email.forgotPassword({ email });
    const reset = await tokenFrom(h.db.db, email, 'reset_password');
    // The same rules and field errors as registration.
    expect(
      await problemOf(
        mailCaller(h).email.resetPassword({ token: reset, new_password: 'short', confirm_password: 'other' }),
      ),
    ).toMatchObject({
      status: 422,
      fields: { new_password: 'password_too_short', confirm_password: 'password_mismatch' },
    });
    expect(
      await problemOf(
        mailCaller(h).email.resetPassword({
          token: reset,
          new_password: 'password1234567890',
          confirm_password: 'password1234567890',
        }),
      ),
    ).toMatchObject({
      fields: { new_password: 'password_too_common' },
    });
    const c = mailCaller(h);
    const done = await c.email.resetPassword({ token: reset, new_password: STRONG2, confirm_password: STRONG2 });
    expect(done).toEqual({ ok: true, sessionsRevoked: 1, email });
    expect(c.issued).toHaveLength(0);
    expect(await problemOf(mailCaller(h, { token: oldSession }).account.me())).toMatchObject({
      code: 'unauthenticated',
    });
    expect(await problemOf(mailCaller(h).account.signIn({ email, password: STRONG }))).toMatchObject({
      fields: { password: 'credentials_invalid' },
    });
    await expect(mailCaller(h).account.signIn({ email, password: STRONG2 })).resolves.toMatchObject({
      user: { email, emailVerified: true },
    });
    expect(
      await problemOf(
        mailCaller(h).email.resetPassword({ token: reset, new_password: STRONG3, confirm_password: STRONG3 }),
      ),
    ).toMatchObject({
      status: 400,
      code: 'reset_token_invalid',
      fields: { token: 'reset_token_invalid' },
    });
    const [notice] = await mailsTo(h.db.db, email, 'password_changed');
    expect(notice!.payload).toMatchObject({
      how: 'reset',
      ip: '192.0.2.10',
      recoverLink: 'http://default.example.test/forgot-password',
    });
    const types = (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id))).map(
      (e) => e.type,
    );
    expect(types).toEqual(expect.arrayContaining(['password_reset_requested', 'password_reset', 'sessions_revoked']));
  });

  it('refuses an unknown, malformed, expired, replaced or outdated token with one code', async () => {
    const { email, token: session } = await signUp(h);
    const attempt = (token: string) =>
      problemOf(mailCaller(h).email.resetPassword({ token, new_password: STRONG3, confirm_password: STRONG3 }));
    expect(await attempt('A'.repeat(43))).toMatchObject({ status: 400, code: 'reset_token_invalid' });
    expect(await attempt('not a token')).toMatchObject({ code: 'reset_token_invalid' });
    expect(await attempt('x'.repeat(300))).toMatchObject({
      code: 'validation_failed',
      fields: { token: 'reset_token_invalid' },
    });
    // Expired.
    await mailCaller(h).email.forgotPassword({ email });
    const expired = await tokenFrom(h.db.db, email, 'reset_password');
    await h.db.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.purpose, 'reset_password'));
    expect(await attempt(expired)).toMatchObject({ code: 'reset_token_invalid' });
    // Replaced by a newer one.
    await mailCaller(h).email.forgotPassword({ email });
    const older = await tokenFrom(h.db.db, email, 'reset_password');
    await mailCaller(h).email.forgotPassword({ email });
    const newer = await tokenFrom(h.db.db, email, 'reset_password');
    expect(await attempt(older)).toMatchObject({ code: 'reset_token_invalid' });
    // The password changed by other means.
    await mailCaller(h, { token: session }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(await attempt(newer)).toMatchObject({ code: 'reset_token_invalid' });
    // Issued after the change, it works; a token of another purpose never does.
    await mailCaller(h).email.forgotPassword({ email });
    expect(await attempt(await tokenFrom(h.db.db, email, 'verify_email'))).toMatchObject({
      code: 'reset_token_invalid',
    });
    await expect(
      mailCaller(h).email.resetPassword({
        token: await tokenFrom(h.db.db, email, 'reset_password'),
        new_password: STRONG3,
        confirm_password: STRONG3,
      }),
    ).resolves.toBeTruthy();
  });

  it('of two concurrent resets with one link, exactly one succeeds', async () => {
    const { email } = await signUp(h);
    await mailCaller(h).email.forgotPassword({ email });
    const token = await tokenFrom(h.db.db, email, 'reset_password');
    const results = await Promise.allSettled(
      [STRONG2, STRONG3].map((p) => mailCaller(h).email.resetPassword({ token, new_password: p, confirm_password: p })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('a realm that requires a verified address refuses its unverified accounts after the password check', async () => {
    await h.realm('strict');
    const { email } = await signUp(h, 'strict');
    await h.db.db.update(realms).set({ requireVerifiedEmail: true }).where(eq(realms.slug, 'strict'));
    const c = () => mailCaller(h, { realm: 'strict' });
    expect(await problemOf(c().account.signIn({ email, password: 'wrong password entirely' }))).toMatchObject({
      status: 422,
      fields: { password: 'credentials_invalid' },
    });
    expect(await problemOf(c().account.signIn({ email, password: STRONG }))).toMatchObject({
      status: 403,
      code: 'email_not_verified',
    });
    await c().email.verifyEmail({ token: await tokenFrom(h.db.db, email, 'verify_email') });
    await expect(c().account.signIn({ email, password: STRONG })).resolves.toMatchObject({
      user: { emailVerified: true },
    });
  });

  it('tells the owner of a sign-in from an unknown client and of a password change, not of a known device', async () => {
    const { email, device, token } = await signUp(h);
    await mailCaller(h).email.verifyEmail({ token: await tokenFrom(h.db.db, email, 'verify_email') });
    await mailCaller(h, { device }).account.signIn({ email, password: STRONG });
    expect(await mailsTo(h.db.db, email, 'new_sign_in')).toHaveLength(0);
    const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
    await mailCaller(h, { ip: '203.0.113.5', userAgent: firefox }).account.signIn({ email, password: STRONG });
    const [mail] = await mailsTo(h.db.db, email, 'new_sign_in');
    expect(mail!.payload).toMatchObject({ ip: '203.0.113.5', device: 'Firefox 128 on Windows 10' });
    // The notice is written in the owner's language (the one they last used), the device's words too.
    await mailCaller(h, { device, locale: 'de' }).account.signIn({ email, password: STRONG });
    await mailCaller(h, { ip: '203.0.113.6', userAgent: firefox }).account.signIn({ email, password: STRONG });
    const [german] = await mailsTo(h.db.db, email, 'new_sign_in');
    expect(german).toMatchObject({
      locale: 'de',
      payload: { ip: '203.0.113.6', device: 'Firefox 128 unter Windows 10' },
    });
    await mailCaller(h, { token }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect((await mailsTo(h.db.db, email, 'password_changed'))[0]!.payload).toMatchObject({ how: 'changed' });
  });

  it('sends a new verification link on request (the older one stops working), none once verified', async () => {
    const { email, token } = await signUp(h);
    const first = await tokenFrom(h.db.db, email, 'verify_email');
    await expect(mailCaller(h, { token }).email.resendVerification()).resolves.toEqual({
      ok: true,
      alreadyVerified: false,
    });
    const second = await tokenFrom(h.db.db, email, 'verify_email');
    expect(second).not.toBe(first);
    expect(await problemOf(mailCaller(h).email.verifyEmail({ token: first }))).toMatchObject({
      code: 'verify_token_invalid',
    });
    await mailCaller(h).email.verifyEmail({ token: second });
    await expect(mailCaller(h, { token }).email.resendVerification()).resolves.toEqual({
      ok: true,
      alreadyVerified: true,
    });
    expect(await problemOf(mailCaller(h).email.resendVerification())).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('queues mails in the language of the request and renders text and HTML parts', async () => {
    const email = uniqueEmail('de');
    await mailCaller(h, { locale: 'de' }).account.register({
      name: 'Zoë <b>',
      email,
      password: STRONG,
      password2: STRONG,
    });
    const [row] = await mailsTo(h.db.db, email, 'verify_email');
    expect(row!.locale).toBe('de');
    const mail = renderMail('verify_email', 'de', row!.payload as never);
    expect(mail.subject).toContain('E-Mail-Adresse');
    expect(mail.text).toContain((row!.payload as { link: string }).link);
    expect(mail.html).toContain('Zoë &lt;b&gt;');
    expect(
      renderMail('new_sign_in', 'fr', {
        realmName: 'R',
        name: 'N',
        at: new Date(0).toISOString(),
        ip: null,
        device: null,
        recoverLink: 'http://x/forgot-password',
      }).subject,
    ).toContain('Nouvelle connexion');
    const count = await h.db.db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(mailOutbox);
    expect(count[0]!.n).toBeGreaterThan(0);
    void users;
  });
});
