import { eq } from 'drizzle-orm';
import { mailSends, users } from '@accounts/db';
import { STRONG, testDrivers, uniqueEmail } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { disableAccount, resetSecondStep } from '../src/operator/accounts.js';
import { recipientKey } from '../src/mail/outbox.js';
import { renderMail, type MailPayload } from '../src/mail/templates.js';
import { mailCaller, mailsTo, operatorMail } from './email-harness.js';
import { useHarness } from './harness.js';

// What an operator does to an account from the command line is told to its owner.
describe.each(testDrivers())("the operator's commands tell the owner, on %s", (driver) => {
  const h = useHarness(driver);

  const account = async (opts: { locale?: 'en' | 'de' | 'fr'; confirmed?: boolean; twoStep?: boolean } = {}) => {
    const email = uniqueEmail('operated');
    const c = mailCaller(h, { locale: opts.locale ?? 'en' });
    const { user } = await c.account.register({ name: 'Ada Owner', email, password: STRONG, password2: STRONG });
    await h.db.db
      .update(users)
      .set({ emailVerifiedAt: opts.confirmed === false ? null : new Date(), twoStep: opts.twoStep ?? false })
      .where(eq(users.id, user.id));
    return { email, user };
  };

  it('disable mails the owner once, to a confirmed address, in their language', async () => {
    const { email } = await account({ locale: 'de' });
    expect(await disableAccount(h.db.db, 'default', email, operatorMail(h))).toMatchObject({
      changed: true,
      told: true,
    });
    const [notice] = await mailsTo(h.db.db, email, 'account_disabled');
    expect(notice).toMatchObject({ locale: 'de' });
    const mail = renderMail('account_disabled', 'de', notice!.payload as MailPayload['account_disabled']);
    expect(mail.subject).toBe('Ihr Konto bei Accounts wurde gesperrt');
    expect(mail.text).toContain('Hallo Ada Owner,');
    // Already disabled: nothing happened, nothing is said.
    expect(await disableAccount(h.db.db, 'default', email, operatorMail(h))).toMatchObject({
      changed: false,
      told: false,
    });
    expect(await mailsTo(h.db.db, email, 'account_disabled')).toHaveLength(1);
    // It counts among the mails others' actions cause.
    const kinds = await h.db.db
      .select()
      .from(mailSends)
      .where(eq(mailSends.recipientKey, recipientKey(email)));
    expect(kinds.map((k) => k.kind).sort()).toEqual(['caused', 'requested']);
  });

  it('an address nobody confirmed is not written to', async () => {
    const { email } = await account({ confirmed: false, twoStep: true });
    expect(await disableAccount(h.db.db, 'default', email, operatorMail(h))).toMatchObject({ told: false });
    expect(await resetSecondStep(h.db.db, 'default', email, operatorMail(h))).toMatchObject({
      wasOn: true,
      told: false,
    });
    expect((await mailsTo(h.db.db, email)).map((m) => m.template)).toEqual(['verify_email']);
  });

  it("reset-second-factor mails the owner, in their language, with links to the realm's own origin", async () => {
    await h.realm('acme');
    const email = uniqueEmail('lost');
    const c = mailCaller(h, { realm: 'acme', locale: 'fr' });
    const { user } = await c.account.register({ name: 'Ada', email, password: STRONG, password2: STRONG });
    await h.db.db.update(users).set({ emailVerifiedAt: new Date(), twoStep: true }).where(eq(users.id, user.id));
    expect(await resetSecondStep(h.db.db, 'acme', email, operatorMail(h))).toMatchObject({ wasOn: true, told: true });
    const [notice] = await mailsTo(h.db.db, email, 'two_step_reset');
    expect(notice).toMatchObject({ locale: 'fr', userId: user.id });
    expect(notice!.payload).toMatchObject({
      realmName: 'Realm acme',
      settingsLink: 'http://acme.example.test/settings/two-step',
      recoverLink: 'http://acme.example.test/forgot-password',
    });
    const mail = renderMail('two_step_reset', 'fr', notice!.payload as MailPayload['two_step_reset']);
    expect(mail.subject).toBe('La connexion en deux étapes a été désactivée pour Realm acme par ses administrateurs');
    expect(mail.html).toContain('href="http://acme.example.test/forgot-password"');
    // Not on (any more): nothing was turned off, nothing is said.
    expect(await resetSecondStep(h.db.db, 'acme', email, operatorMail(h))).toMatchObject({
      wasOn: false,
      told: false,
    });
    expect(await mailsTo(h.db.db, email, 'two_step_reset')).toHaveLength(1);
  });
});
