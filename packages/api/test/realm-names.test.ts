import { realms } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { renderMail, type MailPayload } from '../src/mail/templates.js';
import { findRealm, RealmError, renameRealm } from '../src/records/realms.js';
import { mailCaller, mailsTo, signUp } from './email-harness.js';
import { useHarness } from './harness.js';

// The name a realm goes by with people: its operator's, or for the default realm until it has
// one the service's own name. Never the word "Default".
describe.each(testDrivers())('the name people see a realm by, on %s', (driver) => {
  const h = useHarness(driver, { productName: 'Example ID' });

  const resetSubject = async (realm: string) => {
    const { email } = await signUp(h, realm, uniqueEmail('named'));
    await mailCaller(h, { realm }).email.forgotPassword({ email });
    const [mail] = await mailsTo(h.db.db, email, 'reset_password');
    return renderMail('reset_password', 'en', mail!.payload as MailPayload['reset_password']).subject;
  };

  it('is the service name for the unnamed default realm, in the settings and in mail', async () => {
    expect((await findRealm(h.db.db, 'default'))?.name).toBeNull();
    const settings = await h.caller().account.settings();
    expect(settings.realm).toEqual({ slug: 'default', name: 'Example ID', isDefault: true, named: false });
    expect(await resetSubject('default')).toBe('Reset your password for Example ID');
  });

  it("is the operator's name once the realm is renamed, the default one too", async () => {
    await h.realm('acme');
    expect((await h.caller({ realm: 'acme' }).account.settings()).realm).toEqual({
      slug: 'acme',
      name: 'Realm acme',
      isDefault: false,
      named: true,
    });
    await renameRealm(h.db.db, 'acme', '  Acme Group ');
    expect((await h.caller({ realm: 'acme' }).account.settings()).realm.name).toBe('Acme Group');
    expect(await resetSubject('acme')).toBe('Reset your password for Acme Group');

    await renameRealm(h.db.db, 'default', 'Example Corp');
    expect((await h.caller().account.settings()).realm).toEqual({
      slug: 'default',
      name: 'Example Corp',
      isDefault: true,
      named: true,
    });
    expect(await resetSubject('default')).toBe('Reset your password for Example Corp');
  });

  it('refuses an unknown realm or a blank name, changing nothing', async () => {
    await h.realm('kept');
    await expect(renameRealm(h.db.db, 'nowhere', 'X')).rejects.toThrow(new RealmError('There is no realm "nowhere".'));
    await expect(renameRealm(h.db.db, 'kept', '   ')).rejects.toThrow(RealmError);
    expect((await findRealm(h.db.db, 'kept'))?.name).toBe('Realm kept');
  });

  it('is enforced by the database: only the default realm may go without a name', async () => {
    await h.realm('strict');
    await expect(h.db.db.update(realms).set({ name: null }).where(eq(realms.slug, 'strict'))).rejects.toThrow();
    expect((await findRealm(h.db.db, 'strict'))?.name).toBe('Realm strict');
    await h.db.db.execute(sql`UPDATE realms SET name = NULL WHERE slug = 'default'`);
    expect((await findRealm(h.db.db, 'default'))?.name).toBeNull();
  });
});
