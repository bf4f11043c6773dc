import { describe, expect, inject, it } from 'vitest';
import { auditBothSizes, axeViolations } from './support/audit';
import { DESKTOP, screenshot, useBrowser } from './support/browser';
import {
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

    await page.getByRole('link', { name: 'Settings' }).click();
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
  });

  it("without JavaScript: a styled explanation in the browser's language", async () => {
    const expected = {
      'en-US': 'This page needs JavaScript',
      'de-DE': 'Diese Seite braucht JavaScript',
      'fr-FR': 'Cette page a besoin de JavaScript',
    };
    for (const [locale, words] of Object.entries(expected)) {
      const other = await fresh({ javaScriptEnabled: false, locale });
      await other.goto(`${BASE}/login`);
      const text = await other.locator('.noscript').textContent();
      expect(text, locale).toContain(words);
      // Only that language: one heading, not the build's three.
      expect(await other.locator('.noscript h1').count(), locale).toBe(1);
      expect(await other.locator('html').getAttribute('lang'), locale).toBe(locale.slice(0, 2));
    }
    const page = await fresh({ javaScriptEnabled: false });
    await page.goto(`${BASE}/login`);
    const box = page.locator('.noscript');
    await box.waitFor();
    // Styled by noscript.css, not the browser's bare defaults.
    expect(await box.evaluate((el) => getComputedStyle(el).maxWidth)).not.toBe('none');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await screenshot(page, `noscript-${theme}-desktop`);
    }

    // axe needs scripts: the same page with its noscript parts shown and the app's script left out.
    const html = (await (await page.request.get(`${BASE}/login`, { headers: { accept: 'text/html' } })).text())
      .replace(/<\/?noscript>/g, '')
      .replace(/<script[^>]*src="[^"]*"[^>]*><\/script>/g, '');
    const check = await fresh();
    await check.route(`${BASE}/login`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
    await check.goto(`${BASE}/login`);
    await check.locator('.noscript').waitFor();
    for (const theme of ['light', 'dark'] as const) {
      await check.emulateMedia({ colorScheme: theme });
      expect(await axeViolations(check), theme).toEqual([]);
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
