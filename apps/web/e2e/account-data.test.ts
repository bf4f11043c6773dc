import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../../gateway/test/support/smtp';
import { auditBothSizes } from './support/audit';
import { DESKTOP, useBrowser } from './support/browser';
import {
  FIRST_PASSWORD,
  SECOND_PASSWORD,
  appRunning,
  field,
  person,
  register,
  submitSignIn,
  summaryAfterSubmit,
  uniqueEmail,
} from './support/flows';
import { startMailGateway } from './support/mail-gateway';
import type { Download, Page } from 'playwright-core';

// A person's own account in Chromium: moving it to another address (the link mailed to the new
// address, the notices to the old one, a cancelled change) and downloading a copy of its data,
// against a gateway of its own that sends to a real SMTP server started here.
describe.skipIf(inject('port') === null)('the email address and a copy of one’s data in Chromium', () => {
  let smtp: TestSmtp;
  let gateway: Awaited<ReturnType<typeof startMailGateway>>;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    gateway = await startMailGateway(smtp.url);
    base = `http://localhost:${gateway.port}`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await smtp?.close();
  });
  // After the gateway's hooks: the browser starts once it is up and closes before it stops.
  const { context, page: fresh } = useBrowser();

  type Me = { result: { data: { user: { email: string; emailVerified: boolean } } } };
  const me = (page: Page) =>
    page.evaluate(async () => ((await (await fetch('/trpc/account.me')).json()) as Me).result.data.user);

  /** Confirms the address from the registration mail: notices go to confirmed addresses only. */
  async function confirmAddress(page: Page, email: string) {
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /Confirm your email/.test(m.subject));
    await page.goto(mail.link!);
    await appRunning(page);
    await page.getByRole('button', { name: 'Confirm this address' }).click();
    await page.locator('.verify-done').waitFor();
  }

  /** From the account page to the email address page, and a change to `to` asked for there. */
  async function askForChange(page: Page, to: string) {
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Email address' }).click();
    await page.waitForURL(`${base}/settings/email`);
    await appRunning(page);
    await field(page, 'New email address').fill(to);
    await field(page, 'Current password').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Send the confirmation link' }).click();
    expect(await page.locator('.email-sent').textContent()).toBe(
      `We sent a link to ${to}. Your address changes when you follow it.`,
    );
  }

  it('moves the account to a new address: the link goes there, the old address is told, and only the new one signs in', async () => {
    const ada = person('change-from');
    const newEmail = uniqueEmail('change-to');
    const page = await fresh();
    await register(page, base, ada);
    await confirmAddress(page, ada.email);
    await page.goto(`${base}/account`);

    await page.getByRole('link', { name: 'Email address' }).click();
    await page.waitForURL(`${base}/settings/email`);
    await field(page, 'New email address').waitFor();
    expect(await page.locator('.account-email').textContent()).toBe(ada.email);
    expect(await field(page, 'New email address').getAttribute('autocomplete')).toBe('email');
    await auditBothSizes(page, 'email', DESKTOP);

    await page.getByRole('button', { name: 'Send the confirmation link' }).click();
    await summaryAfterSubmit(page);
    await auditBothSizes(page, 'email-errors', DESKTOP);

    await askForChange(page, newEmail);
    await auditBothSizes(page, 'email-sent', DESKTOP);

    // The link goes to the new address; the old one is told, with the way to stop the change.
    const confirmMail = await smtp.waitFor(
      (m) => m.to.includes(newEmail) && /Confirm your new email address/.test(m.subject),
    );
    expect(confirmMail.link).toMatch(new RegExp(`^${base}/confirm-email-change\\?token=`));
    const notice = await smtp.waitFor(
      (m) => m.to.includes(ada.email) && /A change of email address was asked for/.test(m.subject),
    );
    // Resetting the password (which stops the change) comes first, then stopping the change alone.
    expect(notice.link).toBe(`${base}/forgot-password`);
    expect(notice.text).toContain('that stops the change');
    expect(notice.text).toContain(`${base}/settings/email`);
    expect(notice.text).not.toContain(new URL(confirmMail.link!).searchParams.get('token')!);

    // The old address's link shows the change waiting, with Cancel.
    await page.goto(`${base}/settings/email`);
    const pending = page.locator('.email-pending-what');
    await pending.waitFor();
    expect(await pending.textContent()).toContain(`Your account moves to ${newEmail}`);
    expect(await page.getByRole('button', { name: 'Cancel the change' }).count()).toBe(1);
    await auditBothSizes(page, 'email-pending', DESKTOP);

    // A scanner that opens the link first changes nothing, and uses nothing up.
    const scanner = await fresh();
    await scanner.goto(confirmMail.link!);
    await scanner.locator('.change-what').waitFor();
    await appRunning(scanner);
    expect((await me(page)).email).toBe(ada.email);

    await page.goto(confirmMail.link!);
    const what = page.locator('.change-what');
    await what.waitFor();
    expect(await what.textContent()).toBe(`Move your account at Accounts to ${newEmail}?`);
    // The token leaves the address bar as soon as the page has read it.
    await page.waitForURL(`${base}/confirm-email-change`);
    await auditBothSizes(page, 'confirm-email-change', DESKTOP);
    expect((await me(page)).email).toBe(ada.email);
    await page.getByRole('button', { name: 'Move my account to this address' }).click();
    expect(await page.locator('.change-done').textContent()).toBe(`Your email address is now ${newEmail}.`);
    await auditBothSizes(page, 'confirm-email-change-done', DESKTOP);

    // This session stays; the account page shows the new address, confirmed.
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('.email-verified').waitFor();
    expect(await page.locator('.account-email').textContent()).toBe(newEmail);
    // The old address is told it was replaced.
    await smtp.waitFor((m) => m.to.includes(ada.email) && /has a new email address/.test(m.subject));

    // Signed out, the old address no longer signs in; the new one does.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);
    await appRunning(page);
    await submitSignIn(page, ada.email, FIRST_PASSWORD);
    expect(await summaryAfterSubmit(page)).toContain('incorrect');
    await submitSignIn(page, newEmail, FIRST_PASSWORD);
    await page.waitForURL(`${base}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(newEmail);

    // The link was used up: its page says so as it opens.
    await page.goto(confirmMail.link!);
    await page.locator('.link-stale').waitFor();
    expect(await page.getByRole('button', { name: 'Move my account to this address' }).count()).toBe(0);
  });

  it("a cancelled change's link no longer works, and the address stays", async () => {
    const grace = person('cancel', 'Grace Hopper');
    const newEmail = uniqueEmail('cancel-to');
    const page = await fresh();
    await register(page, base, grace);
    await confirmAddress(page, grace.email);
    await askForChange(page, newEmail);
    const confirmMail = await smtp.waitFor(
      (m) => m.to.includes(newEmail) && /Confirm your new email address/.test(m.subject),
    );

    await page.goto(`${base}/settings/email`);
    await page.locator('.email-pending-what').waitFor();
    await appRunning(page);
    await page.getByRole('button', { name: 'Cancel the change' }).click();
    expect(await page.locator('.email-cancelled').textContent()).toBe(
      `The change was cancelled: the link sent to ${newEmail} no longer works.`,
    );
    expect(await page.locator('.email-pending').count()).toBe(0);
    await auditBothSizes(page, 'email-cancelled', DESKTOP);

    const other = await (await context()).newPage();
    await other.goto(confirmMail.link!);
    expect(await other.locator('.link-stale').textContent()).toMatch(
      /This link (was already used|has expired|is not valid)/,
    );
    expect(await other.getByRole('button', { name: 'Move my account to this address' }).count()).toBe(0);
    await auditBothSizes(other, 'confirm-email-change-invalid', DESKTOP);
    expect((await me(page)).email).toBe(grace.email);
  });

  it('a change asked for with a phished password dies when the owner resets the password, as the notice says', async () => {
    const ada = person('phished');
    const mailbox = uniqueEmail('intruder');
    const page = await fresh();
    await register(page, base, ada);
    await confirmAddress(page, ada.email);

    // Someone with the password signs in elsewhere and asks to move the account to their mailbox.
    const intruder = await (await context()).newPage();
    await intruder.goto(`${base}/login`);
    await submitSignIn(intruder, ada.email, FIRST_PASSWORD);
    await intruder.waitForURL(`${base}/account`);
    await askForChange(intruder, mailbox);
    const kept = await smtp.waitFor((m) => m.to.includes(mailbox) && /Confirm your new email address/.test(m.subject));

    // The owner follows the notice's first link and resets the password by mail.
    const notice = await smtp.waitFor(
      (m) => m.to.includes(ada.email) && /A change of email address was asked for/.test(m.subject),
    );
    await page.goto(notice.link!);
    await page.waitForURL(`${base}/forgot-password`);
    await appRunning(page);
    await field(page, 'Email address').fill(ada.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.locator('.forgot-sent').waitFor();
    const reset = await smtp.waitFor((m) => m.to.includes(ada.email) && /Reset your password/.test(m.subject));
    await page.goto(reset.link!);
    await field(page, 'New password').fill(SECOND_PASSWORD);
    await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(`${base}/login?email=${encodeURIComponent(ada.email)}`);

    // The kept link no longer works, and the account keeps its address.
    await intruder.goto(kept.link!);
    expect(await intruder.locator('.link-stale').textContent()).toMatch(
      /This link (was already used|has expired|is not valid)/,
    );
    expect(await intruder.getByRole('button', { name: 'Move my account to this address' }).count()).toBe(0);
    await appRunning(page);
    await submitSignIn(page, ada.email, SECOND_PASSWORD);
    await page.waitForURL(`${base}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(ada.email);
    expect((await me(page)).email).toBe(ada.email);
  });

  it('downloads a copy of the data: a real file, with the account and without a password', async () => {
    const alan = person('export', 'Alan Turing');
    const page = await fresh();
    await register(page, base, alan);
    await confirmAddress(page, alan.email);
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Download your data' }).click();
    await page.waitForURL(`${base}/settings/data`);
    const button = page.getByRole('button', { name: 'Download your data' });
    await button.waitFor();
    expect(await page.locator('.data-no-secrets').textContent()).toContain('It never contains a password');
    await auditBothSizes(page, 'data', DESKTOP);

    await appRunning(page);
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const day = new Date().toISOString().slice(0, 10);
    expect(download.suggestedFilename()).toBe(`account-default-${day}.json`);
    const text = await readFile(await download.path(), 'utf8');
    const copy = JSON.parse(text) as { format: string; account: { email: string; name: string } };
    expect(copy.format).toBe('accounts-export/1');
    expect(copy.account.email).toBe(alan.email);
    expect(copy.account.name).toBe(alan.name);
    expect(text).not.toContain(FIRST_PASSWORD);
    expect(text).not.toMatch(/argon2|passwordHash|tokenHash|secret/i);
    expect(await page.locator('.data-saved').textContent()).toBe(
      `Your data was downloaded as account-default-${day}.json.`,
    );
    await auditBothSizes(page, 'data-downloaded', DESKTOP);
    // The owner is told.
    await smtp.waitFor((m) => m.to.includes(alan.email) && /A copy of your data/.test(m.subject));
  });

  /** Another site (127.0.0.1 is not the same site as localhost): one page, `html`. */
  async function otherSite(html: string): Promise<{ url: string; close: () => Promise<void> }> {
    const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('another site cannot take a copy of the data: its link to /users/export, followed while signed in, gets no file, and nothing is recorded or mailed', async () => {
    const eve = person('export-cross-site', 'Eve Target');
    const page = await fresh();
    await register(page, base, eve);
    await confirmAddress(page, eve.email);
    const downloads: Download[] = [];
    page.on('download', (d) => downloads.push(d));
    const site = await otherSite(
      `<!doctype html><title>Prize</title><a id="link" href="${base}/users/export">Claim your prize</a>`,
    );
    try {
      await page.goto(site.url);
      // A link followed: a top-level navigation, which carries the session cookie (SameSite=Lax).
      const [answer] = await Promise.all([page.waitForResponse(`${base}/users/export`), page.locator('#link').click()]);
      const sent = await answer.request().allHeaders();
      expect(sent['sec-fetch-site']).toBe('cross-site');
      expect(sent.cookie).toMatch(/(^|; )session=/);
      expect(answer.status()).toBe(405);
      expect(await answer.headerValue('content-disposition')).toBeNull();
      // Shown as a page (the refusal), not kept as a file.
      await page.waitForURL(`${base}/users/export`);
      // The other site's script sending the browser there instead.
      await page.goto(site.url);
      const [again] = await Promise.all([
        page.waitForResponse(`${base}/users/export`),
        page.evaluate((to) => void (location.href = to), `${base}/users/export`),
      ]);
      expect(again.status()).toBe(405);
      await page.waitForURL(`${base}/users/export`);
    } finally {
      await site.close();
    }
    expect(downloads).toEqual([]);

    // Nothing was recorded: the account's activity shows no copy taken.
    await page.goto(`${base}/account`);
    type Activity = { events: { type: string }[] };
    const types = await page.evaluate(async () =>
      ((await (await fetch('/users/activity')).json()) as Activity).events.map((e) => e.type),
    );
    expect(types).toContain('registered');
    expect(types).not.toContain('data_exported');
    // And nothing was mailed: the copy the owner then takes with the page's button is the first one told.
    await page.goto(`${base}/settings/data`);
    await appRunning(page);
    await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download your data' }).click(),
    ]);
    await smtp.waitFor((m) => m.to.includes(eve.email) && /A copy of your data/.test(m.subject));
    expect(smtp.mails.filter((m) => m.to.includes(eve.email) && /A copy of your data/.test(m.subject))).toHaveLength(1);
  });
});
