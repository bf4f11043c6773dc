import { message } from '@accounts/validators';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { DESKTOP, errorNextTo, heading, PHONE, screenshot, useBrowser } from './support/browser';
import {
  appRunning,
  FIRST_PASSWORD,
  SECOND_PASSWORD,
  field,
  fillRegistration,
  noSideScroll,
  person,
  register,
  submitSignIn,
  summaryAfterSubmit,
  uniqueEmail,
} from './support/flows';

const port = inject('port');
const DEFAULT_REALM = `http://localhost:${port}`;
const ACME_REALM = `http://acme.localhost:${port}`;

async function waitForErrorNextTo(page: Page, inputId: string) {
  await page.waitForFunction((id) => document.getElementById(id)?.getAttribute('aria-invalid') === 'true', inputId);
  return errorNextTo(page, inputId);
}

describe.skipIf(port === null)('accounts web app in Chromium', () => {
  const { context } = useBrowser();

  it('registers, changes the password (signing out the other device), signs out, and signs in with the new password only', async () => {
    const ada = person('ada');
    const laptop = await (await context()).newPage();

    await laptop.goto(`${DEFAULT_REALM}/register`);
    await fillRegistration(laptop, ada);
    await laptop.getByRole('button', { name: 'Create account' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await heading(laptop).textContent()).toBe('Your account');
    // Where the confirmation link went, and when the password was set: just now.
    expect(await laptop.locator('#registered-said p').first().textContent()).toBe(
      `We sent a confirmation link to ${ada.email}. Open it to confirm your address.`,
    );
    expect(await laptop.locator('.password-changed').textContent()).toMatch(/^Last changed (now|1 minute ago)$/);
    expect(await laptop.locator('.account-name').textContent()).toBe(ada.name);
    expect(await laptop.locator('.account-email').textContent()).toBe(ada.email);
    // The default realm, unnamed, shows no realm row and no realm in the header: it is the service itself.
    expect(await laptop.locator('.account-realm').count()).toBe(0);
    expect(await laptop.locator('header .realm-name').count()).toBe(0);
    expect(await laptop.locator('main').textContent()).not.toMatch(/\bDefault\b/);

    // A second device signed in as the same user.
    const phone = await (await context({ viewport: PHONE })).newPage();
    await phone.goto(`${DEFAULT_REALM}/login`);
    await submitSignIn(phone, ada.email, ada.password);
    await phone.waitForURL(`${DEFAULT_REALM}/account`);

    await laptop.getByRole('link', { name: 'Change your password' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/settings`);
    await field(laptop, 'Current password').fill(FIRST_PASSWORD);
    await field(laptop, 'New password').fill(SECOND_PASSWORD);
    await field(laptop, 'Confirm new password').fill(SECOND_PASSWORD);
    await laptop.getByRole('button', { name: 'Change password' }).click();
    // The account page confirms it (a new page after the submit is what password managers watch for).
    await laptop.waitForURL(`${DEFAULT_REALM}/account`);
    const confirmation = laptop.locator('.success');
    await confirmation.waitFor();
    expect(await confirmation.getAttribute('role')).toBe('status');
    expect(await confirmation.textContent()).toContain(
      'Your password has been changed. You are still signed in on this device.',
    );
    expect(await confirmation.textContent()).toContain('1 other device was signed out.');
    expect(await laptop.evaluate(() => document.activeElement?.classList.contains('success'))).toBe(true);

    // This device keeps its session across a reload; the other one lost its session.
    await laptop.goto(`${DEFAULT_REALM}/settings`);
    await field(laptop, 'Current password').waitFor();
    expect(laptop.url()).toBe(`${DEFAULT_REALM}/settings`);
    await phone.reload();
    await phone.waitForURL(`${DEFAULT_REALM}/login?next=%2Faccount`);

    await laptop.getByRole('button', { name: 'Sign out' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/login`);
    await laptop.goto(`${DEFAULT_REALM}/account`);
    await laptop.waitForURL(`${DEFAULT_REALM}/login?next=%2Faccount`);

    await submitSignIn(laptop, ada.email, FIRST_PASSWORD);
    expect(await summaryAfterSubmit(laptop)).toBe(message('credentials_invalid', 'en'));
    expect(await errorNextTo(laptop, 'password')).toBe('');

    // From the registration page's link to sign-in, and in: Back then skips the sign-in page.
    await laptop.goto(`${DEFAULT_REALM}/register`);
    await laptop.locator('.switch').getByRole('link', { name: 'Sign in' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/login`);
    await submitSignIn(laptop, ada.email, SECOND_PASSWORD);
    await laptop.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await laptop.locator('.account-email').textContent()).toBe(ada.email);
    await laptop.goBack();
    await laptop.waitForURL(`${DEFAULT_REALM}/register`);
  });

  it('puts every field error next to its field, from the browser checks and from the server', async () => {
    const taken = person('taken');
    await register(await (await context()).newPage(), DEFAULT_REALM, taken);

    const page = await (await context()).newPage();
    await page.goto(`${DEFAULT_REALM}/register`);
    await appRunning(page);

    // Leaving a field says nothing, not even a wrong one: the submit button stays where it was.
    const submitBox = () => page.getByRole('button', { name: 'Create account' }).boundingBox();
    const before = await submitBox();
    await field(page, 'Name').focus();
    await page.keyboard.press('Tab');
    expect(await page.locator('#name').getAttribute('aria-invalid')).toBeNull();
    await field(page, 'Email address').fill('not-an-email');
    await field(page, 'Email address').press('Tab');
    expect(await page.locator('#email').getAttribute('aria-invalid')).toBeNull();
    expect(await errorNextTo(page, 'email')).toBe('');
    expect(await submitBox()).toEqual(before);
    await field(page, 'Email address').fill('');

    await page.getByRole('button', { name: 'Create account' }).click();
    const summary = page.locator('.error-summary');
    await summaryAfterSubmit(page);
    // Announced once, by taking focus; not also a live region.
    expect(await summary.getAttribute('role')).toBeNull();
    expect(await summary.getAttribute('aria-live')).toBeNull();
    expect(await summary.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '#name',
      '#email',
      '#password',
      '#password2',
    ]);
    const empty = {
      name: 'Enter your name.',
      email: 'Enter your email address.',
      password: 'Enter a password.',
      password2: 'Confirm your password.',
    };
    for (const [id, text] of Object.entries(empty)) {
      expect(await page.locator(`#${id}`).getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator(`#${id}`).getAttribute('required')).not.toBeNull();
      expect(await errorNextTo(page, id)).toBe(text);
    }

    await field(page, 'Name').fill('Grace Hopper');
    await field(page, 'Email address').fill('grace@');
    await field(page, 'Password').fill('too short');
    await field(page, 'Confirm password').fill('something else');
    expect(await errorNextTo(page, 'name')).toBe('');
    expect(await errorNextTo(page, 'email')).toBe(message('invalid_email', 'en'));
    expect(await errorNextTo(page, 'password')).toBe(message('password_too_short', 'en', { min: 15 }));
    expect(await errorNextTo(page, 'password2')).toBe(message('password_mismatch', 'en'));
    await page.setViewportSize(PHONE);
    expect(await noSideScroll(page)).toBe(true);
    await page.setViewportSize(DESKTOP);

    // An error only the server can know, in the same words, next to its field.
    await field(page, 'Email address').fill(taken.email);
    await field(page, 'Password').fill(FIRST_PASSWORD);
    await field(page, 'Confirm password').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await waitForErrorNextTo(page, 'email')).toBe(message('email_taken', 'en'));
    expect(await summary.textContent()).toContain(message('email_taken', 'en'));
    expect(page.url()).toBe(`${DEFAULT_REALM}/register`);
    // The way out: the sign-in page, with the address already filled in.
    await page.getByRole('link', { name: 'Sign in instead' }).click();
    await page.waitForURL(/\/login\?email=/);
    expect(await field(page, 'Email address').inputValue()).toBe(taken.email);
  });

  it("leaves the submit button where it was when a field of the hub's pages is left with an error; the submit says it", async () => {
    const page = await (await context()).newPage();
    await register(page, DEFAULT_REALM, person('blur'));
    // Each page: the field, what leaves it wrong, its submit button, and what the submit then says.
    const cases = [
      ['/settings/name', 'Name', '', 'Save name', 'name', 'Enter your name.'],
      [
        '/settings',
        'New password',
        'too short',
        'Change password',
        'new_password',
        message('password_too_short', 'en', { min: 15 }),
      ],
      [
        '/settings/email',
        'New email address',
        'not-an-address',
        'Send the confirmation link',
        'new_email',
        message('invalid_email', 'en'),
      ],
    ] as const;
    for (const [path, label, wrong, submitName, id, said] of cases) {
      await page.goto(`${DEFAULT_REALM}${path}`);
      await appRunning(page);
      const submit = page.getByRole('button', { name: submitName, exact: true });
      const before = await submit.boundingBox();
      expect(before, path).not.toBeNull();
      await field(page, label).fill(wrong);
      await field(page, label).press('Tab');
      // Give an error on leaving the field every chance to show (a render, a frame).
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
      expect(await page.locator(`#${id}`).getAttribute('aria-invalid'), path).toBeNull();
      expect(await submit.boundingBox(), path).toEqual(before);
      await submit.click();
      expect(await waitForErrorNextTo(page, id), path).toBe(said);
    }
  }, 120_000);

  it('after registering, sends the confirmation link again from the box that says where it went, and leads to the change of address', async () => {
    const page = await (await context()).newPage();
    const who = person('resend');
    await register(page, DEFAULT_REALM, who);
    await appRunning(page);
    const box = page.locator('#registered-said');
    expect(await box.getAttribute('role')).toBe('status');
    expect(await box.getAttribute('class')).toBe('success');
    // The one "send again" of the page: the email row only says the address is not confirmed.
    expect(await page.locator('.email-status').textContent()).toBe(' (Not confirmed yet)');
    await box.getByRole('button', { name: 'Send it again' }).click();
    await box.getByText(`We sent a new confirmation link to ${who.email}.`).waitFor();
    expect(await box.getAttribute('class')).toBe('success');
    expect(await box.getByRole('button').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('registered-said');
    await screenshot(page, 'account-registered-sent-again-light-desktop');
    await box.getByRole('link', { name: 'Change it' }).click();
    await page.waitForURL(`${DEFAULT_REALM}/settings/email`);
    await field(page, 'New email address').waitFor();
  });

  it('suggests a passkey or two-step sign-in until dismissed, then never again: after a reload, on another device', async () => {
    const who = person('suggest');
    const page = await (await context()).newPage();
    await register(page, DEFAULT_REALM, who);
    await appRunning(page);
    const suggestion = page.locator('.suggestion');
    // After a registration in the app, the suggestion comes with account.me's full answer.
    await suggestion.waitFor();
    expect(await suggestion.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '/settings/passkeys',
      '/settings/two-step',
    ]);
    let posts = 0;
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/trpc/account.dismissSecondFactorSuggestion') posts += 1;
    });
    await suggestion.getByRole('button', { name: 'Dismiss this suggestion' }).click();
    const said = page.locator('#suggestion-said');
    await said.getByText('We won’t suggest it again, on any device.', { exact: false }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('suggestion-said');
    expect(await suggestion.count()).toBe(0);
    expect(posts).toBe(1);
    await page.reload();
    await page.locator('.account-email').waitFor();
    expect(await page.locator('.suggestion').count()).toBe(0);
    const phone = await (await context({ viewport: PHONE })).newPage();
    await phone.goto(`${DEFAULT_REALM}/login`);
    await submitSignIn(phone, who.email, who.password);
    await phone.waitForURL(`${DEFAULT_REALM}/account`);
    await phone.locator('.account-email').waitFor();
    expect(await phone.locator('.suggestion').count()).toBe(0);
  });

  it('keeps the realms apart: a session of one realm is nothing in another', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    const grace = person('grace', 'Grace Hopper');
    await register(page, DEFAULT_REALM, grace);

    await page.goto(`${ACME_REALM}/account`);
    await page.waitForURL(`${ACME_REALM}/login?next=%2Faccount`);
    expect(await page.locator('header .realm-name').textContent()).toBe('Acme Inc');

    // Even the default realm's session cookie, handed to acme, signs nobody in there.
    const cookies = await ctx.cookies(DEFAULT_REALM);
    expect(cookies.length).toBeGreaterThan(0);
    await ctx.addCookies(cookies.map(({ name, value }) => ({ name, value, url: ACME_REALM })));
    await page.goto(`${ACME_REALM}/account`);
    await page.waitForURL(`${ACME_REALM}/login?next=%2Faccount`);

    const linus = person('linus', 'Linus Torvalds');
    await register(page, ACME_REALM, linus);
    expect(await page.locator('.account-realm').textContent()).toContain('acme');

    // Each realm keeps its own signed-in user.
    await page.goto(`${DEFAULT_REALM}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(grace.email);

    // The acme account does not exist in the default realm.
    const stranger = await (await context()).newPage();
    await stranger.goto(`${DEFAULT_REALM}/login`);
    await submitSignIn(stranger, linus.email, linus.password);
    expect(await summaryAfterSubmit(stranger)).toBe(message('credentials_invalid', 'en'));
  });

  it('sends a signed-out visit to settings through sign-in and back to settings', async () => {
    const who = person('back');
    await register(await (await context()).newPage(), DEFAULT_REALM, who);

    const page = await (await context({ viewport: PHONE })).newPage();
    await page.goto(`${DEFAULT_REALM}/settings`);
    await page.waitForURL(`${DEFAULT_REALM}/login?next=%2Fsettings`);
    expect(await noSideScroll(page)).toBe(true);
    await submitSignIn(page, who.email, who.password);
    await page.waitForURL(`${DEFAULT_REALM}/settings`);
    // The sign-in page stays in the document, hidden, until the settings page's code has loaded.
    await page.getByRole('heading', { level: 1, name: 'Change password' }).waitFor();
    await field(page, 'Current password').waitFor();
  });

  it('sends one registration for a double click', async () => {
    const page = await (await context()).newPage();
    let registrations = 0;
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/trpc/account.register') registrations += 1;
    });
    await page.goto(`${DEFAULT_REALM}/register`);
    await appRunning(page);
    await fillRegistration(page, person('double'));
    await page.getByRole('button', { name: 'Create account' }).dblclick();
    await page.waitForURL(`${DEFAULT_REALM}/account`);
    await page.waitForLoadState('networkidle');
    expect(registrations).toBe(1);
  });

  it('can be used with the keyboard alone on a phone-sized screen', async () => {
    const page = await (await context({ viewport: PHONE })).newPage();
    await page.goto(`${DEFAULT_REALM}/register`);
    await page.locator('#name').waitFor();
    await appRunning(page);
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'name'; i++)
      await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
    // Keyboard focus is visible.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');

    const who = person('keys', 'Keyboard User');
    await page.keyboard.type(who.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.password);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // the show/hide toggle
    expect(await page.locator('#password').getAttribute('type')).toBe('text');
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(who.email);
    expect(await noSideScroll(page)).toBe(true);
  });

  it("loads the password dictionaries only where a new password is typed, and meters with the server's rule", async () => {
    const page = await (await context()).newPage();
    const estimatorRequests: string[] = [];
    page.on('request', (req) => {
      if (/password-estimator/.test(req.url())) estimatorRequests.push(req.url());
    });
    await page.goto(`${DEFAULT_REALM}/login`);
    await field(page, 'Password').waitFor();
    await page.waitForLoadState('networkidle');
    expect(estimatorRequests).toEqual([]);

    await page.goto(`${DEFAULT_REALM}/register`);
    await appRunning(page);
    const level = page.locator('.strength-level');
    await field(page, 'Name').fill('Rosa Parks');
    for (const weak of ['qwertyuiopasdfgh', 'password123456789', 'RosaParks19131955']) {
      await field(page, 'Password').fill(weak);
      await page.waitForFunction(
        () => !document.querySelector('.strength')?.getAttribute('aria-busy')?.startsWith('t'),
      );
      expect(await level.textContent()).toBe('Strength: too weak');
    }
    expect(estimatorRequests.length).toBeGreaterThan(0);
    await field(page, 'Password').fill('rosaline tractor sings at midnight');
    expect(await level.textContent()).toMatch(/^Strength: (good|strong|very strong)$/);
    // The form refuses it with the server's own message.
    await field(page, 'Email address').fill(uniqueEmail('rosa'));
    await field(page, 'Password').fill('password123456789');
    await field(page, 'Confirm password').fill('password123456789');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await waitForErrorNextTo(page, 'password')).toBe(message('password_too_common', 'en'));
  });

  it('follows the browser language, like the server', async () => {
    const page = await (await context({ locale: 'de-DE' })).newPage();
    await page.goto(`${DEFAULT_REALM}/login`);
    expect(await heading(page).textContent()).toBe('Anmelden');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await field(page, 'E-Mail-Adresse').fill(uniqueEmail('niemand'));
    await field(page, 'Passwort').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    expect(await summaryAfterSubmit(page)).toBe(message('credentials_invalid', 'de'));
    await screenshot(page, 'login-failed-de-light-desktop');
  });
});
