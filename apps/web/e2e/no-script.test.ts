import { parseOtpauth, totpCode } from '@accounts/testing';
import { message } from '@accounts/validators';
import type { Locator, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../../gateway/test/support/smtp';
import { errorNextTo, heading, useBrowser } from './support/browser';
import {
  FIRST_PASSWORD,
  SECOND_PASSWORD,
  appRunning,
  field,
  fillRegistration,
  person,
  submitSignIn,
  summaryAfterSubmit,
  type Person,
} from './support/flows';
import { startMailGateway } from './support/mail-gateway';

// Every page with JavaScript turned off in Chromium: the browser posts each form to its page, the
// gateway completes it and answers with the next page (303) or the page again with what was wrong.
// Against a gateway of its own that sends to a real SMTP server started here (the mailed links).

/** How long a page may take to answer on a busy machine. */
const ANSWER_MS = 20_000;
/** A story of several pages. */
const STORY_MS = 120_000;
const SUMMARY_TITLE = 'Please correct the following:';

/** A six-digit code the app does not show now, nor one step either side of now. */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((offset) => totpCode(secret, Date.now(), offset)));
  return ['000000', '111111', '222222', '333333'].find((code) => !near.has(code))!;
}

/**
 * What no page may be without scripts: a notice that it needs them, a read-only input or a
 * disabled submit button (waiting for scripts that never come), or a button only scripts can
 * work (a passkey, the show-password toggle). The hidden username that tells password managers
 * whose password a form takes is read-only by design, and never shown.
 */
async function worksWithoutScripts(page: Page) {
  const where = new URL(page.url()).pathname;
  // The one thing that cannot work without scripts says so: adding a passkey (the browser's
  // prompt is a script API). Nothing else may.
  const content = (await page.content()).replace(
    where === '/settings/passkeys' ? 'Adding a passkey needs JavaScript' : /^$/,
    '',
  );
  expect(content, where).not.toMatch(/needs JavaScript/i);
  expect(await page.locator('input[readonly]:not([type=hidden]):not([hidden])').count(), where).toBe(0);
  expect(await page.locator('button[type=submit][disabled]').count(), where).toBe(0);
  expect(await page.getByRole('button', { name: /passkey/i }).count(), where).toBe(0);
  expect(await page.locator('button.toggle').count(), where).toBe(0);
}

describe.skipIf(inject('port') === null)('every page without JavaScript', () => {
  let smtp: TestSmtp;
  let gateway: Awaited<ReturnType<typeof startMailGateway>>;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    // The stories below sign up, in and out more often than a person does in ten minutes.
    gateway = await startMailGateway(smtp.url, {
      RATE_LIMIT_REGISTER: '500',
      RATE_LIMIT_SIGN_IN: '500',
      RATE_LIMIT_CHANGE_PASSWORD: '500',
      RATE_LIMIT_ACCOUNT_WRITES: '500',
    });
    base = `http://localhost:${gateway.port}`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await smtp?.close();
  });
  // After the gateway's hooks: the browser starts once it is up and closes before it stops.
  const { context } = useBrowser();

  /** A page in a fresh browser profile with JavaScript turned off. */
  const noScriptPage = async () => (await context({ javaScriptEnabled: false })).newPage();

  /** Opens a page of the service, checks it works without scripts; the answer is the last of any redirects. */
  async function open(page: Page, path: string): Promise<Response> {
    const response = await page.goto(`${base}${path}`, { timeout: ANSWER_MS });
    await worksWithoutScripts(page);
    return response!;
  }

  /**
   * Submits the form of `button` as the browser does without scripts, and checks the answer to
   * the post: `status` (the page again), or a 303 to `path` (the next page), once that page has
   * loaded. A different answer fails with what the page said.
   */
  async function submit(page: Page, button: Locator, expected: number | number[] | { to: string }): Promise<Response> {
    const from = page.url();
    const answered = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.request().isNavigationRequest() && r.frame() === page.mainFrame(),
      { timeout: ANSWER_MS },
    );
    const loaded = page.waitForEvent('load', { timeout: ANSWER_MS });
    const [response] = await Promise.all([answered, loaded, button.click({ timeout: ANSWER_MS })]);
    const said = `the post to ${from} was answered ${response.status()}: ${(await page.locator('body').innerText()).slice(0, 600)}`;
    if (typeof expected === 'number') {
      expect(response.status(), said).toBe(expected);
    } else if (Array.isArray(expected)) {
      expect(expected, said).toContain(response.status());
    } else {
      expect(response.status(), said).toBe(303);
      expect(new URL(response.headers().location ?? '', base).href, said).toBe(`${base}${expected.to}`);
      expect(page.url(), said).toBe(`${base}${expected.to}`);
    }
    await worksWithoutScripts(page);
    return response;
  }

  const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

  async function signUp(page: Page, who: Person) {
    await open(page, '/register');
    await fillRegistration(page, who);
    await submit(page, button(page, 'Create account'), { to: '/account' });
    expect(await heading(page).textContent()).toBe('Your account');
  }

  /** The header's button, on whatever page: back at sign-in. */
  async function signOut(page: Page) {
    await submit(page, page.locator('header').getByRole('button', { name: 'Sign out' }), { to: '/login' });
    await field(page, 'Email address').waitFor();
  }

  /** Signs in on the sign-in page the browser shows now. */
  async function signIn(page: Page, email: string, password: string, expected: number | { to: string }) {
    await field(page, 'Email address').fill(email);
    await field(page, 'Password').fill(password);
    return submit(page, button(page, 'Sign in'), expected);
  }

  /** A new account, signed in without scripts. */
  async function newAccount(tag: string) {
    const who = person(`noscript-${tag}`);
    const page = await noScriptPage();
    await signUp(page, who);
    return { who, page };
  }

  /** Another device signed in to the account, with scripts (as most are), on its account page. */
  async function otherDevice(who: Person, password = who.password) {
    const other = await (await context()).newPage();
    await other.goto(`${base}/login`);
    await appRunning(other);
    await submitSignIn(other, who.email, password);
    await other.waitForURL(`${base}/account`);
    return other;
  }

  /** That device's next page load goes to sign-in: its session is over. */
  async function expectSignedOut(other: Page) {
    await other.goto(`${base}/account`);
    await other.waitForURL(/\/login\?next=%2Faccount/);
  }

  it(
    'registers, signs out, signs in: to the account, and to the page it was sent to sign in from',
    async () => {
      const ada = person('noscript');
      const page = await noScriptPage();
      await signUp(page, ada);
      expect(await page.locator('.account-name').textContent()).toBe(ada.name);
      expect(await page.locator('.account-email').textContent()).toBe(ada.email);

      await signOut(page);
      await signIn(page, ada.email, ada.password, { to: '/account' });
      expect(await page.locator('.account-email').textContent()).toBe(ada.email);

      // A signed-in page, signed out: the server sends the browser to sign in (302), and back after.
      await signOut(page);
      const sent = await open(page, '/settings/name');
      expect(
        await sent
          .request()
          .redirectedFrom()
          ?.response()
          .then((r) => r?.status()),
      ).toBe(302);
      expect(page.url()).toBe(`${base}/login?next=%2Fsettings%2Fname`);
      await signIn(page, ada.email, ada.password, { to: '/settings/name' });
      expect(await heading(page).textContent()).toBe('Change your name');
    },
    STORY_MS,
  );

  it(
    'the account page: where the confirmation link went (sent again from that box), when the password was set, the suggestion dismissed for good',
    async () => {
      const { who, page } = await newAccount('hub');
      const box = page.locator('#registered-said');
      expect(await box.locator('p').first().textContent()).toBe(
        `We sent a confirmation link to ${who.email}. Open it to confirm your address.`,
      );
      expect(await page.locator('.password-changed').textContent()).toMatch(/^Last changed (now|1 minute ago)$/);
      // The box's own "Send it again", posted by the browser: the same box says it went.
      await submit(page, box.getByRole('button', { name: 'Send it again' }), 200);
      expect(await box.locator('p').first().textContent()).toBe(`We sent a new confirmation link to ${who.email}.`);
      expect(await box.getByRole('link', { name: 'Change it' }).getAttribute('href')).toBe('/settings/email');
      // Two confirmation mails reach the address: the registration's, and this one.
      const confirmations = () =>
        smtp.mails.filter((m) => m.to.includes(who.email) && /Confirm your email/.test(m.subject)).length;
      await expect.poll(confirmations, { timeout: ANSWER_MS }).toBe(2);

      // The suggestion of a second factor, dismissed with its form: gone here and on another device.
      await submit(page, button(page, 'Dismiss this suggestion'), 200);
      expect(await page.locator('#suggestion-said').textContent()).toContain(
        'We won’t suggest it again, on any device.',
      );
      await open(page, '/account');
      expect(await page.locator('.suggestion').count()).toBe(0);
      expect(await page.locator('#registered-said').count()).toBe(0);
      const other = await otherDevice(who);
      await other.locator('.account-email').waitFor();
      expect(await other.locator('.suggestion').count()).toBe(0);
    },
    STORY_MS,
  );

  it(
    'a field error (a mismatched confirmation): 422, the summary and the field message, name and email kept, no password in the page',
    async () => {
      const bea = person('noscript-error', 'Bea Schmidt');
      const page = await noScriptPage();
      await open(page, '/register');
      await fillRegistration(page, bea);
      await field(page, 'Confirm password').fill(SECOND_PASSWORD);
      await submit(page, button(page, 'Create account'), 422);
      expect(page.url()).toBe(`${base}/register`);

      const mismatch = message('password_mismatch', 'en');
      expect(await page.locator('.error-summary h2').textContent()).toBe(SUMMARY_TITLE);
      expect(await page.locator('.error-summary li').allTextContents()).toEqual([`Confirm password: ${mismatch}`]);
      expect(await errorNextTo(page, 'password2')).toBe(mismatch);
      expect(await field(page, 'Name').inputValue()).toBe(bea.name);
      expect(await field(page, 'Email address').inputValue()).toBe(bea.email);
      expect(await field(page, 'Password').inputValue()).toBe('');
      expect(await field(page, 'Confirm password').inputValue()).toBe('');
      const html = await page.content();
      expect(html).not.toContain(FIRST_PASSWORD);
      expect(html).not.toContain(SECOND_PASSWORD);

      // Corrected, it goes through.
      await field(page, 'Password').fill(bea.password);
      await field(page, 'Confirm password').fill(bea.password);
      await submit(page, button(page, 'Create account'), { to: '/account' });
      expect(await page.locator('.account-name').textContent()).toBe(bea.name);
    },
    STORY_MS,
  );

  it(
    'changes the password: the other device is signed out, the new password signs in',
    async () => {
      const { who, page } = await newAccount('password');
      const other = await otherDevice(who);

      await open(page, '/settings');
      await field(page, 'Current password').fill(who.password);
      await field(page, 'New password').fill(SECOND_PASSWORD);
      await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
      await submit(page, button(page, 'Change password'), { to: '/account' });
      expect(await page.locator('.success').textContent()).toContain(
        'Your password has been changed. You are still signed in on this device.',
      );
      expect(await page.locator('.success .revoked').textContent()).toBe('1 other device was signed out.');
      expect(await page.content()).not.toContain(SECOND_PASSWORD);
      // Said once: the next visit of the account page is the page alone.
      await open(page, '/account');
      expect(await page.locator('.success').count()).toBe(0);

      await expectSignedOut(other);
      await signOut(page);
      await signIn(page, who.email, who.password, 422);
      expect(await page.locator('.error-summary').textContent()).toContain(message('credentials_invalid', 'en'));
      await signIn(page, who.email, SECOND_PASSWORD, { to: '/account' });
    },
    STORY_MS,
  );

  it(
    'changes the name: the page says so and the account shows the new one',
    async () => {
      const { page } = await newAccount('name');
      await open(page, '/settings/name');
      expect(await field(page, 'Name').inputValue()).toBe('Ada Lovelace');
      await field(page, 'Name').fill('Ada King');
      await submit(page, button(page, 'Save name'), 200);
      expect(await page.getByText('Your name has been changed to Ada King.').count()).toBe(1);
      await open(page, '/account');
      expect(await page.locator('.account-name').textContent()).toBe('Ada King');
      // Adding a passkey is the browser's prompt, a script API: the page says so instead of offering it.
      await open(page, '/settings/passkeys');
      await page.getByText('Adding a passkey needs JavaScript').waitFor();
      expect(await page.getByRole('button', { name: 'Add a passkey' }).count()).toBe(0);
    },
    STORY_MS,
  );

  it(
    'turns on two-step sign-in from the key the page shows, then signs in with a code (a wrong one first)',
    async () => {
      const { who, page } = await newAccount('two-step');
      await open(page, '/settings/two-step');
      await page.getByText('Two-step sign-in is off.').waitFor();

      await submit(page, button(page, 'Set up'), 200);
      expect(
        await page
          .getByRole('img', { name: 'QR code that adds this account to an authenticator app' })
          .getAttribute('src'),
      ).toMatch(/^data:image\/svg\+xml;base64,/);
      // The key as the page shows it (in groups of four), and the same key in the otpauth:// link.
      const shown = (await page.locator('.totp-key code').textContent()) ?? '';
      expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
      const secret = shown.replace(/ /g, '');
      const uri = await page
        .getByRole('link', { name: /Open the set-up in your authenticator app/ })
        .getAttribute('href');
      expect(parseOtpauth(uri!)).toMatchObject({ secret, label: `Accounts:${who.email}`, digits: 6, period: 30 });

      await field(page, '6-digit code').fill(totpCode(secret));
      await field(page, 'Current password').fill(who.password);
      await submit(page, button(page, 'Turn on'), 200);
      await page.getByRole('heading', { level: 2, name: 'Save your recovery codes' }).waitFor();
      expect(await page.getByText('Two-step sign-in is now on.').count()).toBe(1);
      const codes = await page.locator('.codes code').allTextContents();
      expect(codes).toHaveLength(10);
      expect(await page.content()).not.toContain(who.password);

      // The password, then the second step on the sign-in page.
      await signOut(page);
      await signIn(page, who.email, who.password, 200);
      expect(page.url()).toBe(`${base}/login`);
      expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(
        'Enter the 6-digit code from your authenticator app',
      );
      const code = field(page, 'Code from your app, or a recovery code');
      expect(await code.getAttribute('name')).toBe('code');
      expect(await page.content()).not.toContain(who.password);

      await code.fill(wrongCode(secret));
      await submit(page, button(page, 'Sign in'), 422);
      expect(page.url()).toBe(`${base}/login`);
      expect(await page.locator('.error-summary').textContent()).toContain(message('code_incorrect', 'en'));
      expect(await code.inputValue()).toBe('');

      // The next step's code: the one the set-up used is not taken twice.
      await code.fill(totpCode(secret, Date.now(), 1));
      await submit(page, button(page, 'Sign in'), { to: '/account' });
      expect(await page.locator('.two-step-badge').textContent()).toBe('On');

      // A recovery code: the 303 lands on the account page, told a recovery code was used.
      await signOut(page);
      await signIn(page, who.email, who.password, 200);
      await code.fill(codes[0]!);
      await submit(page, button(page, 'Sign in'), { to: '/account?notice=recovery_code_used' });

      // Wrong codes from another browser: from the third the step says the tries left in plain
      // words, and the fifth ends the sign-in, saying how long to wait.
      const guesser = await noScriptPage();
      await open(guesser, '/login');
      await signIn(guesser, who.email, who.password, 200);
      const guess = field(guesser, 'Code from your app, or a recovery code');
      for (const said of ['', '', '2 tries left.', '1 try left.']) {
        await guess.fill(wrongCode(secret));
        await submit(guesser, button(guesser, 'Sign in'), 422);
        expect(await guesser.locator('#attempts-left').textContent()).toBe(said);
      }
      await guess.fill(wrongCode(secret));
      await submit(guesser, button(guesser, 'Sign in'), 429);
      expect(await guesser.locator('.sign-in-expired').textContent()).toMatch(
        /^Too many wrong codes\. Try again in about \d+ minutes?\.$/,
      );
      expect(await field(guesser, 'Password').count()).toBe(1);
      expect(await guess.count()).toBe(0);
    },
    STORY_MS,
  );

  it(
    'forgot password: the mailed link opens the reset page, and the new password signs in',
    async () => {
      const { who, page } = await newAccount('reset');
      await signOut(page);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.waitForURL(`${base}/forgot-password`);
      await worksWithoutScripts(page);
      await field(page, 'Email address').fill(who.email);
      await submit(page, button(page, 'Send the link'), 200);
      expect(await page.locator('.forgot-sent').textContent()).toContain(
        `If an account exists for ${who.email}, we have sent a link to it.`,
      );

      const mail = await smtp.waitFor((m) => m.to.includes(who.email) && /Reset your password/.test(m.subject));
      expect(mail.link).toMatch(new RegExp(`^${base}/reset-password\\?token=`));
      await open(page, new URL(mail.link!).pathname + new URL(mail.link!).search);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await field(page, 'New password').fill(SECOND_PASSWORD);
      await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
      // The sign-in page that follows has the address filled in.
      await submit(page, button(page, 'Set new password'), { to: `/login?email=${encodeURIComponent(who.email)}` });
      expect(await field(page, 'Email address').inputValue()).toBe(who.email);
      expect(await page.locator('.password-reset').textContent()).toBe(
        'Your password has been reset and every device was signed out. Sign in with your new password.',
      );

      await signIn(page, who.email, who.password, 422);
      await signIn(page, who.email, SECOND_PASSWORD, { to: '/account' });
    },
    STORY_MS,
  );

  it(
    'confirms the address from the registration mail',
    async () => {
      const { who, page } = await newAccount('verify');
      expect(await page.locator('.email-unverified').textContent()).toContain('Not confirmed yet');
      const mail = await smtp.waitFor((m) => m.to.includes(who.email) && /Confirm your email/.test(m.subject));
      const link = new URL(mail.link!);
      expect(link.pathname).toBe('/verify-email');
      await open(page, link.pathname + link.search);
      expect(await page.locator('.verify-what').textContent()).toBe(
        `Confirm ${who.email} as the email address of your account in Accounts.`,
      );
      await submit(page, button(page, 'Confirm this address'), 200);
      expect(await page.locator('.verify-done').textContent()).toBe('Your email address is confirmed.');
      await open(page, '/account');
      expect(await page.locator('.email-verified').textContent()).toContain('Confirmed');
    },
    STORY_MS,
  );

  it(
    'the devices page signs out another device',
    async () => {
      const { who, page } = await newAccount('sessions');
      const other = await otherDevice(who);
      await open(page, '/settings/sessions');
      const others = page.locator('.session:not([data-current])');
      expect(await page.locator('.session').count()).toBe(2);
      expect(await others.count()).toBe(1);

      // Ending a session asks for the password: its link opens that step, the page's own address with it.
      await others.getByRole('link', { name: /^Sign out / }).click();
      await page.waitForURL(new RegExp(`^${base}/settings/sessions\\?end=`));
      await worksWithoutScripts(page);
      await field(page, 'Current password').fill(who.password);
      await submit(page, page.getByRole('button', { name: /^Sign out .+/ }), 200);
      expect(page.url()).toMatch(new RegExp(`^${base}/settings/sessions`));
      expect(await page.getByText('That device was signed out.').count()).toBe(1);
      expect(await page.locator('.session').count()).toBe(1);
      await expectSignedOut(other);
    },
    STORY_MS,
  );

  it(
    'deletes the account with the password: the page says so, and the account no longer signs in',
    async () => {
      const { who, page } = await newAccount('delete');
      await open(page, '/settings/delete');
      await field(page, 'Current password').fill(who.password);
      await submit(page, button(page, 'Delete my account'), [200, 303]);
      expect(await page.locator('.account-deleted').textContent()).toContain(
        'Your account has been deleted, and you have been signed out.',
      );
      expect(await page.content()).not.toContain(who.password);

      const back = await open(page, '/account');
      expect(
        await back
          .request()
          .redirectedFrom()
          ?.response()
          .then((r) => r?.status()),
      ).toBe(302);
      expect(page.url()).toBe(`${base}/login?next=%2Faccount`);
      await signIn(page, who.email, who.password, 422);
      expect(await page.locator('.error-summary').textContent()).toContain(message('credentials_invalid', 'en'));
    },
    STORY_MS,
  );

  it(
    'with JavaScript on, a form is submitted by the app: the page is never reloaded',
    async () => {
      const cy = person('noscript-js', 'Cy Young');
      const page = await (await context()).newPage();
      const posted: string[] = [];
      page.on('request', (request) => {
        if (request.isNavigationRequest() && request.method() === 'POST') posted.push(request.url());
      });
      const marker = () => page.evaluate(() => (window as unknown as { __marker?: number }).__marker);

      await page.goto(`${base}/register`);
      await appRunning(page);
      await page.evaluate(() => {
        (window as unknown as { __marker?: number }).__marker = 1;
      });
      await fillRegistration(page, cy);
      await field(page, 'Confirm password').fill(SECOND_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      expect(await summaryAfterSubmit(page)).toBe(SUMMARY_TITLE);
      expect(await errorNextTo(page, 'password2')).toBe(message('password_mismatch', 'en'));
      expect(await marker()).toBe(1);

      await field(page, 'Password').fill(cy.password);
      await field(page, 'Confirm password').fill(cy.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${base}/account`);
      await page.locator('.account-name', { hasText: cy.name }).waitFor();
      expect(await marker()).toBe(1);

      await page.locator('header').getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/login`);
      await submitSignIn(page, cy.email, cy.password);
      await page.waitForURL(`${base}/account`);
      expect(await marker()).toBe(1);
      expect(posted).toEqual([]);
    },
    STORY_MS,
  );
});
