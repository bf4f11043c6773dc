import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../../gateway/test/support/smtp';
import { PHONE, useBrowser } from './support/browser';
import {
  FIRST_PASSWORD,
  SECOND_PASSWORD,
  appRunning,
  field,
  person,
  register,
  submitSignIn,
  summaryAfterSubmit,
} from './support/flows';
import { axeViolations } from './support/audit';
import { startMailGateway } from './support/mail-gateway';

// The mailed-link flows in Chromium, against a gateway of their own that sends to a real SMTP
// server started here.
describe.skipIf(inject('port') === null)('mailed links in Chromium', () => {
  let smtp: TestSmtp;
  let gateway: Awaited<ReturnType<typeof startMailGateway>>;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    // Every page behind a mailed link checks it, and every browser here comes from 127.0.0.1:
    // that limit is raised as startGateway raises the others.
    gateway = await startMailGateway(smtp.url, { RATE_LIMIT_LINK_CHECK: '500' });
    base = `http://localhost:${gateway.port}`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await smtp?.close();
  });
  // After the gateway's hooks: the browser starts once it is up and closes before it stops.
  const { context } = useBrowser();

  it('forgot password on the sign-in page → the mail arrives → its link sets a new password and asks to sign in; the old password, every session and every known device stop working', async () => {
    const ada = person('reset');
    const laptop = await (await context()).newPage();
    await register(laptop, base, ada);
    const phone = await (await context({ viewport: PHONE })).newPage();
    await phone.goto(`${base}/login`);
    await submitSignIn(phone, ada.email, FIRST_PASSWORD);
    await phone.waitForURL(`${base}/account`);

    // Somewhere else, the password is forgotten.
    const page = await (await context()).newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${base}/forgot-password`);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await field(page, 'Email address').fill(ada.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    expect(await page.locator('.forgot-sent').textContent()).toContain(
      `If an account exists for ${ada.email}, we have sent a link to it.`,
    );

    const mail = await smtp.waitFor((m) => m.to.includes(ada.email) && /Reset your password/.test(m.subject));
    expect(mail.link).toMatch(new RegExp(`^${base}/reset-password\\?token=`));
    const token = new URL(mail.link!).searchParams.get('token')!;
    // A scanner that opens the link first uses nothing up.
    const scanner = await (await context()).newPage();
    await scanner.goto(mail.link!);
    await scanner.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await appRunning(scanner);
    await page.goto(mail.link!);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    // The token leaves the address bar (and history) as soon as the page has read it.
    await page.waitForURL(`${base}/reset-password`);
    expect(await axeViolations(page)).toEqual([]);
    await field(page, 'New password').fill(SECOND_PASSWORD);
    await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    // Not signed in: the sign-in page asks for the new password, the address filled in.
    await page.waitForURL(`${base}/login?email=${encodeURIComponent(ada.email)}`);
    expect(await field(page, 'Email address').inputValue()).toBe(ada.email);
    expect(await page.locator('.password-reset').textContent()).toBe(
      'Your password has been reset and every device was signed out. Sign in with your new password.',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${base}/account`);
    await page.waitForURL(/\/login/);

    // The other sessions are over.
    for (const other of [laptop, phone]) {
      await other.goto(`${base}/account`);
      await other.waitForURL(/\/login/);
    }
    // The laptop is no longer a known device: signing in there again is announced (the reset confirmed the address).
    const signInNotices = () =>
      smtp.mails.filter((m) => m.to.includes(ada.email) && /New sign-in/.test(m.subject)).length;
    const noticesBefore = signInNotices();
    await submitSignIn(laptop, ada.email, SECOND_PASSWORD);
    await laptop.waitForURL(/\/account/);
    await expect.poll(signInNotices, { timeout: 20_000 }).toBe(noticesBefore + 1);
    // The old password no longer works, the new one does.
    const later = await (await context()).newPage();
    await later.goto(`${base}/login`);
    await submitSignIn(later, ada.email, FIRST_PASSWORD);
    await later.locator('.error-summary').waitFor();
    await submitSignIn(later, ada.email, SECOND_PASSWORD);
    await later.waitForURL(`${base}/account`);

    // The link was used up: its page says so at once, and the token was never written to the log.
    await page.goto(mail.link!);
    await appRunning(page);
    expect(await page.locator('.link-used').textContent()).toBe(
      'This link was already used, or a newer one was sent since.',
    );
    expect(await field(page, 'New password').count()).toBe(0);
    expect(gateway.log()).not.toContain(token);
  });

  it('five wrong passwords, then a reset by mail: the same browser signs in with the new password at once', async () => {
    const ada = person('locked');
    const page = await (await context()).newPage();
    await register(page, base, ada);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);
    await appRunning(page);
    for (let i = 0; i < 5; i++) {
      await submitSignIn(page, ada.email, `not my password at all ${i}`);
      expect(await summaryAfterSubmit(page)).toBeTruthy();
    }
    // Locked out for this browser: the right password waits too.
    await submitSignIn(page, ada.email, FIRST_PASSWORD);
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toContain('Too many failed attempts');

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${base}/forgot-password`);
    await appRunning(page);
    await field(page, 'Email address').fill(ada.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.locator('.forgot-sent').waitFor();
    const mail = await smtp.waitFor((m) => m.to.includes(ada.email) && /Reset your password/.test(m.subject));
    await page.goto(mail.link!);
    await field(page, 'New password').fill(SECOND_PASSWORD);
    await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(`${base}/login?email=${encodeURIComponent(ada.email)}`);
    await appRunning(page);

    // The reset proved the mailbox and set a new password: the lockout counted against the old one is lifted.
    await submitSignIn(page, ada.email, SECOND_PASSWORD);
    await page.waitForURL(`${base}/account`);
  });

  it('a reset link is checked when its page opens, with and without scripts: a used or unknown one says so at once with the form for a new link, and opening uses nothing up', async () => {
    const ada = person('checked');
    await register(await (await context()).newPage(), base, ada);
    const asker = await (await context()).newPage();
    await asker.goto(`${base}/forgot-password`);
    await appRunning(asker);
    await field(asker, 'Email address').fill(ada.email);
    await asker.getByRole('button', { name: 'Send the link' }).click();
    await asker.locator('.forgot-sent').waitFor();
    const mail = await smtp.waitFor((m) => m.to.includes(ada.email) && /Reset your password/.test(m.subject));
    const open = async (url: string, scripts: boolean) => {
      const page = await (await context({ javaScriptEnabled: scripts })).newPage();
      await page.goto(url);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      if (scripts) await appRunning(page);
      return page;
    };

    // Opened with and without scripts, the link is usable and stays so.
    for (const scripts of [false, true]) {
      const page = await open(mail.link!, scripts);
      expect(await field(page, 'New password').count(), `scripts: ${scripts}`).toBe(1);
      expect(await page.locator('.link-stale').count()).toBe(0);
    }
    // Then it still works: used without scripts, the sign-in page has the address filled in.
    const user = await open(mail.link!, false);
    await field(user, 'New password').fill(SECOND_PASSWORD);
    await field(user, 'Confirm new password').fill(SECOND_PASSWORD);
    await user.getByRole('button', { name: 'Set new password' }).click();
    await user.waitForURL(`${base}/login?email=${encodeURIComponent(ada.email)}`);
    expect(await field(user, 'Email address').inputValue()).toBe(ada.email);

    for (const scripts of [false, true]) {
      // Used: said at once, no password fields, the form for a new link filled in.
      const used = await open(mail.link!, scripts);
      expect(await used.locator('.link-used').textContent()).toBe(
        'This link was already used, or a newer one was sent since.',
      );
      expect(await field(used, 'New password').count()).toBe(0);
      await used.getByRole('heading', { name: 'Send a new link' }).waitFor();
      expect(await field(used, 'Email address').inputValue()).toBe(ada.email);
      if (scripts) expect(await axeViolations(used)).toEqual([]);
      await used.getByRole('button', { name: 'Send the link' }).click();
      // Sent (the second time the address's cap on links may hold it back, and says so).
      expect(await used.locator('.forgot-sent').textContent()).toMatch(
        new RegExp(
          `^If an account exists for ${ada.email.replace(/[.]/g, '\\.')}, we have (already )?sent a link to it`,
        ),
      );
      // Unknown: said at once, nothing filled in.
      const unknown = await open(`${base}/reset-password?token=${'A'.repeat(43)}`, scripts);
      expect(await unknown.locator('.link-unknown').textContent()).toContain('This link is not valid.');
      expect(await field(unknown, 'New password').count()).toBe(0);
      expect(await field(unknown, 'Email address').inputValue()).toBe('');
    }
    expect(gateway.log()).not.toContain(new URL(mail.link!).searchParams.get('token')!);
  }, 120_000);

  it('confirms the address from the registration mail, and the account page shows it', async () => {
    const grace = person('verify', 'Grace Hopper');
    const page = await (await context()).newPage();
    await register(page, base, grace);
    expect(await page.locator('.email-unverified').textContent()).toContain('Not confirmed yet');
    // Just registered, the account page's status box says where the link went and sends it again;
    // the email row offers no second way.
    const box = page.locator('#registered-said');
    expect(await box.locator('p').first().textContent()).toBe(
      `We sent a confirmation link to ${grace.email}. Open it to confirm your address.`,
    );
    expect(await page.getByRole('button', { name: 'Send the link again' }).count()).toBe(0);
    await box.getByRole('button', { name: 'Send it again' }).click();
    await box.getByText(`We sent a new confirmation link to ${grace.email}.`).waitFor();
    const mails = () => smtp.mails.filter((m) => m.to.includes(grace.email) && /Confirm your email/.test(m.subject));
    await expect.poll(() => mails().length, { timeout: 20_000 }).toBe(2);
    const newest = mails().at(-1)!;
    type Me = { result: { data: { user: { emailVerified: boolean } } } };
    const emailVerified = () =>
      page.evaluate(
        async () => ((await (await fetch('/trpc/account.me')).json()) as Me).result.data.user.emailVerified,
      );
    // Opened by a scanner, and by the person: what it would confirm is shown, nothing is confirmed.
    const scanner = await (await context()).newPage();
    for (const opened of [scanner, page]) {
      await opened.goto(newest.link!);
      const what = opened.locator('.verify-what');
      await what.waitFor();
      expect(await what.textContent()).toBe(`Confirm ${grace.email} as the email address of your account in Accounts.`);
      await appRunning(opened);
    }
    await page.waitForURL(`${base}/verify-email`);
    expect(await emailVerified()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Confirm this address' }).click();
    await page.locator('.verify-done').waitFor();
    expect(await emailVerified()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.waitForURL(`${base}/account`);
    expect(await page.locator('.email-verified').textContent()).toContain('Confirmed');
    expect(await axeViolations(page)).toEqual([]);
  });
});
