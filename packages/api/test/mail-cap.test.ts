import { and, eq, sql } from 'drizzle-orm';
import { mailOutbox, mailSends, openDatabase, users } from '@accounts/db';
import { STRONG, STRONG2, testDrivers, uniqueEmail } from '@accounts/testing';
import type { Locale } from '@accounts/validators';
import { describe, expect, it } from 'vitest';
import { enqueueMail, recipientKey, type MailKind } from '../src/mail/outbox.js';
import { findRealm } from '../src/records/realms.js';
import { purgeExpired } from '../src/operator/retention.js';
import { callerFor, createAppRouter } from '../src/router.js';
import { mailCaller, mailsTo, tokenFrom } from './email-harness.js';
import { problemOf, testContext, useHarness } from './harness.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

describe.each(testDrivers())('the cap on mail to one address, on %s', (driver) => {
  // The documented defaults, per address in 10 minutes: 3 links asked for to it, and, counted
  // apart, 10 mails other people's actions cause (change-of-address mail, notices).
  const h = useHarness(driver);

  const register = async (email: string, opts: { realm?: string; locale?: Locale } = {}) => {
    const c = mailCaller(h, opts);
    const { user } = await c.account.register({ name: 'Cap User', email, password: STRONG, password2: STRONG });
    return { user, token: c.issued[0]!.token, device: c.devices[0]! };
  };
  const confirm = async (email: string, realm?: string) =>
    mailCaller(h, { realm }).email.verifyEmail({ token: await tokenFrom(h.db.db, email, 'verify_email') });
  /** The mails the cap counts now (in the window) for an address, of one kind or all. */
  const sendsTo = async (email: string, kind?: MailKind) =>
    (
      await h.db.db
        .select()
        .from(mailSends)
        .where(
          and(
            eq(mailSends.recipientKey, recipientKey(email)),
            kind ? eq(mailSends.kind, kind) : undefined,
            sql`${mailSends.createdAt} > now() - interval '600 seconds'`,
          ),
        )
    ).length;
  /** Moves the address's counted mails out of the window, as if they had been sent 10 minutes ago. */
  const ageOut = (email: string) =>
    h.db.db.execute(
      sql`update mail_sends set created_at = now() - interval '601 seconds' where recipient_key = ${recipientKey(email)}`,
    );

  it('register/delete cycles get no more than 3 verification links to one address', async () => {
    const email = uniqueEmail('cycle');
    for (let i = 0; i < 5; i++) {
      const { token } = await register(email);
      await h.caller({ token }).security.deleteAccount({ current_password: STRONG });
    }
    // The deleted accounts' queued mail went with them; the count of what was queued did not.
    expect(await sendsTo(email)).toBe(3);
    // A sixth registration still succeeds, without the mail (the person can ask for a link later).
    const { user } = await register(email);
    expect(user.email).toBe(email);
    expect(await mailsTo(h.db.db, email, 'verify_email')).toHaveLength(0);
    expect(await sendsTo(email)).toBe(3);
  });

  it('counts an address across realms, and in any spelling', async () => {
    await h.realm('cap-a');
    await h.realm('cap-b');
    const email = uniqueEmail('realms');
    await register(email, { realm: 'cap-a' });
    await register(email.toUpperCase(), { realm: 'cap-b' });
    await mailCaller(h, { realm: 'cap-a' }).email.forgotPassword({ email: ` ${email.toUpperCase()} ` });
    await mailCaller(h, { realm: 'cap-b' }).email.forgotPassword({ email });
    // Three links in all: the fourth request, in either realm, queued nothing.
    const templates = (await mailsTo(h.db.db, email)).map((m) => m.template).sort();
    expect(templates).toEqual(['reset_password', 'verify_email', 'verify_email']);
  });

  it('over the cap a reset request answers alike, queues nothing and leaves the last link working', async () => {
    const email = uniqueEmail('capped');
    await register(email);
    await mailCaller(h).email.forgotPassword({ email });
    await mailCaller(h).email.forgotPassword({ email });
    const last = await tokenFrom(h.db.db, email, 'reset_password');
    const log: string[] = [];
    const held = await mailCaller(h, { log }).email.forgotPassword({ email });
    // The address had its 3 links (the registration's and two resets): when it may ask again.
    expect(held).toEqual({ ok: true, retryAfter: expect.any(Number) });
    expect(held.retryAfter).toBeGreaterThan(590);
    expect(held.retryAfter).toBeLessThanOrEqual(600);
    expect(await mailsTo(h.db.db, email, 'reset_password')).toHaveLength(2);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('mail cap');
    expect(log[0]).not.toContain(email);
    await expect(
      mailCaller(h).email.resetPassword({ token: last, new_password: STRONG2, confirm_password: STRONG2 }),
    ).resolves.toBeTruthy();
  });

  it('answers a new verification link over the cap with 429 and a Retry-After from the window', async () => {
    const email = uniqueEmail('resend');
    const { token } = await register(email);
    const me = mailCaller(h, { token });
    await expect(me.email.resendVerification()).resolves.toEqual({ ok: true, alreadyVerified: false });
    await expect(me.email.resendVerification()).resolves.toEqual({ ok: true, alreadyVerified: false });
    const refused = await problemOf(me.email.resendVerification());
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.retryAfter).toBeGreaterThan(590);
    expect(refused.retryAfter).toBeLessThanOrEqual(600);
    // When the first of the three leaves the window there is room again.
    await h.db.db.execute(
      sql`update mail_sends set created_at = now() - interval '590 seconds' where id = (select min(id) from mail_sends where recipient_key = ${recipientKey(email)})`,
    );
    const sooner = await problemOf(me.email.resendVerification());
    expect(sooner.retryAfter).toBeGreaterThan(0);
    expect(sooner.retryAfter).toBeLessThanOrEqual(10);
    await h.db.db.execute(
      sql`update mail_sends set created_at = now() - interval '601 seconds' where recipient_key = ${recipientKey(email)}`,
    );
    await expect(me.email.resendVerification()).resolves.toEqual({ ok: true, alreadyVerified: false });
  });

  it('a flood of link requests does not silence notices; their own cap of 10 does, and the drop is logged without the address', async () => {
    const email = uniqueEmail('notice');
    const { token } = await register(email);
    await confirm(email);
    for (let i = 0; i < 3; i++) await mailCaller(h).email.forgotPassword({ email });
    expect(await sendsTo(email, 'requested')).toBe(3);
    // Links are held back, but the owner still hears of a new sign-in.
    await mailCaller(h, { userAgent: FIREFOX }).account.signIn({ email, password: STRONG });
    expect(await mailsTo(h.db.db, email, 'new_sign_in')).toHaveLength(1);
    for (let i = 0; i < 9; i++) await mailCaller(h).account.signIn({ email, password: STRONG });
    expect(await sendsTo(email, 'caused')).toBe(10);
    const log: string[] = [];
    await mailCaller(h, { token, log }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(await mailsTo(h.db.db, email, 'password_changed')).toHaveLength(0);
    expect(await sendsTo(email)).toBe(13);
    expect(log.map((l) => JSON.parse(l) as { mail: { template: string }; msg: string })).toEqual([
      expect.objectContaining({
        mail: expect.objectContaining({ template: 'password_changed' }),
        msg: 'mail not queued: its address reached the mail cap',
      }),
    ]);
    expect(log.join('')).not.toContain(email);
  });

  it("others' change-of-address requests onto an address, and its notices, do not stop its own reset link", async () => {
    await h.realm('cap-other');
    const email = uniqueEmail('target');
    await register(email);
    await confirm(email);
    await ageOut(email);
    // Three accounts ask to move onto the address: two in its realm (taken: an attempt mail to
    // it), one in another realm (free there: a confirmation link to it).
    for (const realm of ['default', 'cap-other', 'default']) {
      const mover = uniqueEmail('mover');
      const { token } = await register(mover, { realm });
      await mailCaller(h, { realm, token }).emailChange.request({ new_email: email, current_password: STRONG });
    }
    expect((await mailsTo(h.db.db, email)).map((m) => m.template).sort()).toEqual([
      'confirm_email_change',
      'email_change_attempt',
      'email_change_attempt',
      'verify_email',
    ]);
    // And the owner's own sign-in notices, up to their cap.
    for (let i = 0; i < 7; i++) await mailCaller(h).account.signIn({ email, password: STRONG });
    expect(await sendsTo(email, 'caused')).toBe(10);
    // The owner's reset links still go, up to their own cap.
    expect(await mailCaller(h).email.forgotPassword({ email })).toEqual({ ok: true });
    expect(await mailsTo(h.db.db, email, 'reset_password')).toHaveLength(1);
    expect(await mailCaller(h).email.forgotPassword({ email })).toEqual({ ok: true });
    expect(await mailCaller(h).email.forgotPassword({ email })).toEqual({ ok: true });
    expect(await mailCaller(h).email.forgotPassword({ email })).toEqual({ ok: true, retryAfter: expect.any(Number) });
    expect(await mailsTo(h.db.db, email, 'reset_password')).toHaveLength(3);
    expect(await sendsTo(email, 'requested')).toBe(3);
  });

  it('an address no account has is held back exactly like one an account has, with the same answer', async () => {
    const known = uniqueEmail('known');
    const unknown = uniqueEmail('unknown');
    await register(known);
    await ageOut(known);
    const ask = async (email: string) => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await mailCaller(h).email.forgotPassword({ email }));
      return answers;
    };
    const [fromKnown, fromUnknown] = [await ask(known), await ask(unknown)];
    // The wait in minutes: the two were asked a moment apart.
    const alike = (answers: { ok: true; retryAfter?: number }[]) =>
      answers.map(({ retryAfter, ...rest }) =>
        retryAfter === undefined ? rest : { ...rest, retryAfter: Math.ceil(retryAfter / 60) },
      );
    expect(alike(fromKnown)).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: true, retryAfter: 10 }]);
    expect(alike(fromUnknown)).toEqual(alike(fromKnown));
    expect(await sendsTo(known, 'requested')).toBe(3);
    expect(await sendsTo(unknown, 'requested')).toBe(3);
    expect(await mailsTo(h.db.db, known, 'reset_password')).toHaveLength(3);
    expect(await mailsTo(h.db.db, unknown)).toEqual([]);
  });

  // Two handles on one database are two instances: the embedded database has only one.
  if (driver === 'postgres')
    it('two database handles (two instances) share one count', async () => {
      const other = await openDatabase({ url: h.db.url!, poolSize: 4 });
      try {
        const email = uniqueEmail('handles');
        await register(email);
        await ageOut(email);
        const on = (db: typeof other) =>
          callerFor(createAppRouter(h.config))(testContext({ db, hasher: h.hasher, vault: h.vault }).context);
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => on(i % 2 ? other : h.db).email.forgotPassword({ email })),
        );
        expect(answers.filter((a) => a.retryAfter === undefined)).toHaveLength(3);
        expect(await mailsTo(h.db.db, email, 'reset_password')).toHaveLength(3);
        expect(await sendsTo(email, 'requested')).toBe(3);
      } finally {
        await other.close();
      }
    });

  it('two transactions deciding at once cannot both take the last place', async () => {
    const email = uniqueEmail('race');
    const cap = { requested: 3, caused: 10, windowMs: 600_000 };
    const { user } = await register(email);
    const realm = (await findRealm(h.db.db, 'default'))!;
    const attempts = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.db.db.transaction((tx) =>
          enqueueMail(tx, cap, {
            realmId: realm.id,
            userId: user.id,
            recipient: email,
            template: 'reset_password',
            locale: 'en',
            payload: () => ({ realmName: 'R', name: 'N', link: 'http://x/reset-password?token=t', validMinutes: 30 }),
          }),
        ),
      ),
    );
    expect(attempts.filter((a) => a.queued)).toHaveLength(2);
    expect(await sendsTo(email)).toBe(3);
  });

  it('sends notices only to a confirmed address', async () => {
    const email = uniqueEmail('unconfirmed');
    const { token } = await register(email);
    await mailCaller(h, { userAgent: FIREFOX, ip: '203.0.113.9' }).account.signIn({ email, password: STRONG });
    await mailCaller(h, { token }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect((await mailsTo(h.db.db, email)).map((m) => m.template)).toEqual(['verify_email']);
  });

  it('describes the device of a new sign-in by the names the parser knows, never the header text', async () => {
    const email = uniqueEmail('device');
    await register(email);
    await confirm(email);
    const deviceOf = async (userAgent: string) => {
      await mailCaller(h, { userAgent }).account.signIn({ email, password: STRONG });
      return (await mailsTo(h.db.db, email, 'new_sign_in'))[0]!.payload as { device: unknown; userAgent?: unknown };
    };
    expect(await deviceOf(FIREFOX)).toEqual(expect.objectContaining({ device: 'Firefox 128 on Windows 10' }));
    // A program's own name, or a version that is not one, is the header's text: left out.
    expect(await deviceOf('Visit-evil.example/1.0 to keep your account')).toEqual(
      expect.objectContaining({ device: null }),
    );
    const odd = await deviceOf('Mozilla/5.0 (Windows NT evil.example) Gecko/1 Konqueror/call.555.0100');
    expect(odd).toEqual(expect.objectContaining({ device: 'Konqueror on Windows' }));
    expect(odd).not.toHaveProperty('userAgent');
  });

  it("writes every mail in the account's language: set at registration, kept from the owner's sign-ins and password changes", async () => {
    const email = uniqueEmail('locale');
    const { token, device } = await register(email, { locale: 'de' });
    const localeOf = async () =>
      (await h.db.db.select({ locale: users.locale }).from(users).where(eq(users.email, email)))[0]!.locale;
    expect(await localeOf()).toBe('de');
    expect((await mailsTo(h.db.db, email, 'verify_email'))[0]!.locale).toBe('de');
    await confirm(email);
    // A stranger asking in French gets the owner a German mail.
    await mailCaller(h, { locale: 'fr' }).email.forgotPassword({ email });
    expect((await mailsTo(h.db.db, email, 'reset_password'))[0]!.locale).toBe('de');
    // A sign-in from a known device in the same language writes nothing to the account.
    const xmin = async () =>
      await h.db.db.execute<{ xmin: string }>(sql`select xmin::text as xmin from users where email = ${email}`);
    const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows);
    const before = rowsOf(await xmin());
    await mailCaller(h, { device, locale: 'de' }).account.signIn({ email, password: STRONG });
    expect(rowsOf(await xmin())).toEqual(before);
    // A sign-in in French from a new device: its notice in the language used so far, later mails in French.
    await mailCaller(h, { locale: 'fr', userAgent: FIREFOX }).account.signIn({ email, password: STRONG });
    expect((await mailsTo(h.db.db, email, 'new_sign_in'))[0]!.locale).toBe('de');
    expect(await localeOf()).toBe('fr');
    // (Room under the cap for the next link: three mails were counted so far.)
    await h.db.db.delete(mailSends).where(eq(mailSends.recipientKey, recipientKey(email)));
    await mailCaller(h, { locale: 'en' }).email.forgotPassword({ email });
    expect((await mailsTo(h.db.db, email, 'reset_password'))[0]!.locale).toBe('fr');
    // A password change in English: the notice in French, English from then on.
    await mailCaller(h, { token, locale: 'en', device }).account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect((await mailsTo(h.db.db, email, 'password_changed'))[0]!.locale).toBe('fr');
    expect(await localeOf()).toBe('en');
    const rows = await h.db.db
      .select({ locale: mailOutbox.locale, template: mailOutbox.template })
      .from(mailOutbox)
      .where(eq(mailOutbox.recipient, email));
    expect(rows.map((r) => r.locale).sort()).toEqual(['de', 'de', 'de', 'fr', 'fr']);
  });

  it('purges the records of queued mail once the window no longer counts them', async () => {
    const email = uniqueEmail('purge');
    await register(email);
    await mailCaller(h).email.forgotPassword({ email });
    await h.db.db.execute(
      sql`update mail_sends set created_at = now() - interval '601 seconds' where id = (select min(id) from mail_sends where recipient_key = ${recipientKey(email)})`,
    );
    const purged = await purgeExpired(h.db.db, h.config, { eventRetentionMs: 90 * 86_400_000 });
    expect(purged.mailSends).toBeGreaterThanOrEqual(1);
    expect(await sendsTo(email)).toBe(1);
  });
});
