import { renameRealm, renderMail, type MailTemplate } from '@accounts/api';
import { mailOutbox, type Database } from '@accounts/db';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openedPayload, registration, startGateway, uniqueEmail, type Gateway } from './support/gateway.js';

// The default realm never calls itself "Default" to a person: its pages and mails use the
// service's name (SERVICE_NAME) until an operator names it (`npm run realm -- rename`), and a
// rename reaches a running server's pages without a restart.

const html = { accept: 'text/html', 'accept-language': 'de' };

/** The newest queued mail of a template to an address, rendered as the sender renders it. */
async function queuedMail(db: Database, email: string, template: MailTemplate) {
  const rows = await db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email)).orderBy(desc(mailOutbox.id));
  const row = rows.find((r) => r.template === template);
  if (!row) throw new Error(`no queued ${template} mail to ${email}`);
  return renderMail(template, 'en', openedPayload(row) as never);
}

describe('the name the default realm goes by, on a running server', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { SERVE_WEB: 'true', SERVICE_NAME: 'Example ID', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  const settings = async () =>
    (await gw.send('GET', '/trpc/account.settings')).json.result.data as { realm: { name: string; named: boolean } };

  it('is the service name on its pages and in its mail until it is named, then the new name', async () => {
    const signIn = await gw.send('GET', '/login', { headers: html });
    expect(signIn.text).toContain('Bei Example ID anmelden.');
    expect(signIn.text).toContain('<title>Anmelden · Example ID</title>');
    expect(signIn.text).not.toMatch(/\bDefault\b/);
    expect((await settings()).realm).toMatchObject({ name: 'Example ID', named: false });

    const email = uniqueEmail('named-realm');
    const reg = await gw.form('/users/register', registration(email));
    expect(reg.status).toBe(201);
    const account = await gw.send('GET', '/account', { headers: { ...html, cookie: reg.cookie! } });
    // The realm row is for named realms only.
    expect(account.text).not.toContain('class="account-realm"');
    expect((await queuedMail(gw.db.db, email, 'verify_email')).subject).toBe(
      'Confirm your email address for Example ID',
    );

    await renameRealm(gw.db.db, 'default', 'Example Corp');
    // The server's realm cache keeps a realm a few seconds: then every answer has the new name.
    await expect
      .poll(async () => (await settings()).realm, { timeout: 10_000, interval: 250 })
      .toMatchObject({
        name: 'Example Corp',
        named: true,
      });
    const named = await gw.send('GET', '/account', { headers: { ...html, cookie: reg.cookie! } });
    expect(named.text).toContain(
      '<span class="hub-row-state account-realm">Example Corp<!-- --> <span class="realm-slug">default</span></span>',
    );
    expect(named.text).toContain('<title>Ihr Konto · Example Corp · Example ID</title>');
    expect((await gw.form('/users/forgot_password', { email })).status).toBe(202);
    expect((await queuedMail(gw.db.db, email, 'reset_password')).subject).toBe('Reset your password for Example Corp');
  });
});
