import { parseOtpauth, totpCode } from '@accounts/testing';
import { describe, expect, inject, it } from 'vitest';
import { audit, auditBothSizes } from './support/audit';
import { DESKTOP, PHONE, useBrowser } from './support/browser';
import {
  appRunning,
  FIRST_PASSWORD,
  SECOND_PASSWORD,
  field,
  fillRegistration,
  person,
  register,
  submitSignIn,
  summaryAfterSubmit,
} from './support/flows';

// Every page in each of its states, checked with axe-core in the light and the dark theme at
// desktop and phone widths; the screenshots of these checks are the app's picture book.

const port = inject('port');
const BASE = `http://localhost:${port}`;
const ACME = `http://acme.localhost:${port}`;

describe.skipIf(port === null)('every page and state, in both themes, at both sizes', () => {
  const { page: fresh } = useBrowser();

  it('sign-in: empty, with errors, wrong credentials, after the session ended', async () => {
    const page = await fresh();
    await page.goto(`${BASE}/login`);
    await field(page, 'Email address').waitFor();
    await auditBothSizes(page, 'login', DESKTOP);

    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await summaryAfterSubmit(page);
    await auditBothSizes(page, 'login-errors', DESKTOP);

    await submitSignIn(page, 'nobody@example.com', FIRST_PASSWORD);
    await page.waitForFunction(() => document.querySelector('.error-summary h2')?.textContent?.includes('incorrect'));
    await auditBothSizes(page, 'login-wrong-credentials', DESKTOP);

    await page.goto(`${BASE}/login?next=%2Fsettings&expired=1`);
    await page.getByText('You were signed out. Sign in again to change your password.').waitFor();
    await auditBothSizes(page, 'login-session-ended', DESKTOP);
  });

  it('registration: empty, with errors, typing a password, a taken email', async () => {
    const taken = person('pages-taken');
    await register(await fresh(), BASE, taken);

    const page = await fresh();
    await page.goto(`${BASE}/register`);
    await field(page, 'Name').waitFor();
    await auditBothSizes(page, 'register', DESKTOP);

    await page.getByRole('button', { name: 'Create account' }).click();
    await summaryAfterSubmit(page);
    await auditBothSizes(page, 'register-errors', DESKTOP);

    await fillRegistration(page, { ...taken, password: 'lovelace1234' });
    await auditBothSizes(page, 'register-typing', DESKTOP);

    await fillRegistration(page, taken);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: 'Sign in instead' }).waitFor();
    await auditBothSizes(page, 'register-email-taken', DESKTOP);
  });

  it('account, settings (empty, with errors), the change confirmed, a page that does not exist, another realm', async () => {
    const page = await fresh();
    const who = person('pages');
    await register(page, BASE, who);
    await page.locator('.account-email').waitFor();
    await auditBothSizes(page, 'account', DESKTOP);
    // On a phone every action of the hub and the header is a target of 44 × 44 CSS pixels or more
    // (WCAG 2.5.5; links inside a sentence, like "Send the link again", are its inline exception).
    await page.setViewportSize(PHONE);
    await page.locator('.passkeys-badge').waitFor();
    const small = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.hub-row-title, .site-header a, .site-header button')]
        .map((el) => ({ text: el.textContent, box: el.getBoundingClientRect() }))
        .filter(({ box }) => box.width < 44 || box.height < 44)
        .map(({ text, box }) => `${text}: ${Math.round(box.width)}×${Math.round(box.height)}`),
    );
    expect(small).toEqual([]);
    expect(await page.locator('.site-header').evaluate((el) => el.getBoundingClientRect().height)).toBeLessThan(80);
    await page.setViewportSize(DESKTOP);

    await page.getByRole('link', { name: 'Change your password' }).click();
    await field(page, 'Current password').waitFor();
    await auditBothSizes(page, 'settings', DESKTOP);

    await page.getByRole('button', { name: 'Change password' }).click();
    await summaryAfterSubmit(page);
    await auditBothSizes(page, 'settings-errors', DESKTOP);

    await field(page, 'Current password').fill(FIRST_PASSWORD);
    await field(page, 'New password').fill(SECOND_PASSWORD);
    await field(page, 'Confirm new password').fill(SECOND_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('.success').waitFor();
    await auditBothSizes(page, 'account-password-changed', DESKTOP);

    await page.goto(`${BASE}/no/such/page`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await auditBothSizes(page, 'not-found', DESKTOP);

    const acme = await fresh();
    await acme.goto(`${ACME}/login`);
    await field(acme, 'Email address').waitFor();
    expect(await acme.locator('header .realm-name').textContent()).toBe('Acme Inc');
    expect(await acme.title()).toBe('Sign in · Acme Inc · Accounts');
    await auditBothSizes(acme, 'login-acme', DESKTOP);
  }, 120_000);

  it('account: the suggestion dismissed; after a sign-in with a recovery code, in English and German', async () => {
    const page = await fresh();
    const who = person('pages-recovery');
    await register(page, BASE, who);
    await appRunning(page);
    await page.getByRole('button', { name: 'Dismiss this suggestion' }).click();
    await page.locator('#suggestion-said p').waitFor();
    await auditBothSizes(page, 'account-suggestion-dismissed', DESKTOP);

    // Two-step sign-in on, through the form routes with this browser's session; then a sign-in
    // whose second step is a recovery code (its cookies, the pending sign-in's and the session's, are this browser's).
    const setup = await page.request.post(`${BASE}/users/totp/setup`, { form: {} });
    const { secret } = parseOtpauth(((await setup.json()) as { uri: string }).uri);
    const on = await page.request.post(`${BASE}/users/totp/enable`, {
      form: { code: totpCode(secret), current_password: who.password },
    });
    const { recoveryCodes } = (await on.json()) as { recoveryCodes: string[] };
    const first = await page.request.post(`${BASE}/users/login`, {
      form: { email: who.email, password: who.password },
    });
    expect(first.status()).toBe(401);
    const second = await page.request.post(`${BASE}/users/login/second_factor`, { form: { code: recoveryCodes[0]! } });
    expect(second.status()).toBe(200);

    await page.goto(`${BASE}/account?notice=recovery_code_used`);
    const notice = page.locator('#recovery-said');
    await notice.waitFor();
    expect(await notice.textContent()).toBe('You signed in with a recovery code. 9 left.');
    expect(await notice.getAttribute('role')).toBe('status');
    // The account has a second factor now: nothing to suggest.
    expect(await page.locator('.suggestion').count()).toBe(0);
    await auditBothSizes(page, 'account-recovery-code', DESKTOP);

    const de = await fresh({ locale: 'de-DE' });
    await de.context().addCookies(await page.context().cookies(BASE));
    await de.goto(`${BASE}/account?notice=recovery_code_used`);
    expect(await de.locator('#recovery-said').textContent()).toBe(
      'Sie haben sich mit einem Wiederherstellungscode angemeldet. Noch 9 übrig.',
    );
    expect(await de.locator('.password-changed').textContent()).toMatch(/^Zuletzt geändert (jetzt|vor 1 Minute)$/);
  }, 120_000);

  it("without JavaScript: the page itself in the browser's language, its form the server's, checked like the others", async () => {
    const titles = { 'en-US': 'Sign in', 'de-DE': 'Anmelden', 'fr-FR': 'Se connecter' };
    for (const [locale, title] of Object.entries(titles)) {
      const other = await fresh({ javaScriptEnabled: false, locale });
      await other.goto(`${BASE}/login`);
      expect(await other.locator('h1').textContent(), locale).toBe(title);
      expect(await other.locator('html').getAttribute('lang'), locale).toBe(locale.slice(0, 2));
      // No notice that scripts are needed: the form is posted to the page itself.
      expect(await other.locator('.noscript').count(), locale).toBe(0);
      expect(await other.locator('main form').getAttribute('method'), locale).toBe('post');
      expect(await other.locator('main form').getAttribute('action'), locale).toBe('/login');
    }

    // axe needs scripts: the HTML the browser got without them (the page as first rendered, and
    // with the errors of an empty submit), served without the app's script to a browser with them.
    const page = await fresh({ javaScriptEnabled: false });
    await page.goto(`${BASE}/login`);
    const login = await page.content();
    await page.goto(`${BASE}/register`);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('.error-summary').waitFor();
    const registerErrors = await page.content();
    const check = await fresh();
    for (const [name, path, html] of [
      ['login-no-script', '/login', login],
      ['register-errors-no-script', '/register', registerErrors],
    ] as const) {
      const body = html.replace(/<script[^>]*src="[^"]*"[^>]*><\/script>/g, '');
      await check.route(`${BASE}${path}`, (route) => route.fulfill({ contentType: 'text/html', body }));
      await check.goto(`${BASE}${path}`);
      await check.locator('h1').waitFor();
      for (const size of [DESKTOP, PHONE]) {
        await check.setViewportSize(size);
        await audit(check, name);
      }
      await check.unroute(`${BASE}${path}`);
    }
  });

  it('spaces an empty form evenly: nothing is kept for errors that are not there', async () => {
    const page = await fresh();
    await page.goto(`${BASE}/register`);
    await field(page, 'Confirm password').waitFor();
    const gaps = await page.evaluate(() => {
      const fields = [...document.querySelectorAll('form > .field')].map((el) => el.getBoundingClientRect());
      return fields.slice(1).map((box, i) => Math.round(box.top - fields[i]!.bottom));
    });
    expect(new Set(gaps).size).toBe(1);
  });
});
