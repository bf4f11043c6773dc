import { message } from '@accounts/validators';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, errorNextTo, heading, launchBrowser, newContext, PHONE, screenshot } from './support/browser';

const port = inject('port');
const DEFAULT_REALM = `http://localhost:${port}`;
const ACME_REALM = `http://acme.localhost:${port}`;

const FIRST_PASSWORD = 'violet tractor sings at midnight';
const SECOND_PASSWORD = 'quiet harbor lanterns drifting east';

let counter = 0;
const uniqueEmail = (tag: string) => `${tag}.${Date.now()}.${counter++}@example.com`;

interface Person {
  name: string;
  email: string;
  password: string;
}

const person = (tag: string, name = 'Ada Lovelace'): Person => ({ name, email: uniqueEmail(tag), password: FIRST_PASSWORD });

async function fillRegistration(page: Page, who: Person) {
  await field(page, 'Name').fill(who.name);
  await field(page, 'Email address').fill(who.email);
  await field(page, 'Password').fill(who.password);
  await field(page, 'Confirm password').fill(who.password);
}

async function register(page: Page, base: string, who: Person) {
  await page.goto(`${base}/register`);
  await fillRegistration(page, who);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${base}/account`);
}

async function submitSignIn(page: Page, email: string, password: string) {
  await field(page, 'Email address').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function waitForErrorNextTo(page: Page, inputId: string) {
  await page.waitForFunction((id) => document.getElementById(id)?.getAttribute('aria-invalid') === 'true', inputId);
  return errorNextTo(page, inputId);
}

/** An input by its visible label (exact, so the "Show …" toggles do not match). */
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.skipIf(port === null)('accounts web app in Chromium', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const context = async (options?: Parameters<typeof newContext>[1]) => {
    const ctx = await newContext(browser, options);
    contexts.push(ctx);
    return ctx;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const ctx of contexts) await ctx.close();
    await browser?.close();
  });

  it('registers, changes the password (signing out the other device), signs out, and signs in with the new password only', async () => {
    const ada = person('ada');
    const laptop = await (await context()).newPage();

    await laptop.goto(`${DEFAULT_REALM}/register`);
    await fillRegistration(laptop, ada);
    await screenshot(laptop, 'register-desktop');
    await laptop.getByRole('button', { name: 'Create account' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await heading(laptop).textContent()).toBe('Your account');
    expect(await laptop.locator('.account-name').textContent()).toBe(ada.name);
    expect(await laptop.locator('.account-email').textContent()).toBe(ada.email);
    expect(await laptop.locator('.account-realm').textContent()).toContain('default');
    expect(await laptop.locator('header .realm-slug').textContent()).toBe('default');
    await screenshot(laptop, 'account-desktop');

    // A second device signed in as the same user.
    const phone = await (await context({ viewport: PHONE })).newPage();
    await phone.goto(`${DEFAULT_REALM}/login`);
    await submitSignIn(phone, ada.email, ada.password);
    await phone.waitForURL(`${DEFAULT_REALM}/account`);
    await screenshot(phone, 'account-phone');

    await laptop.getByRole('link', { name: 'Settings' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/settings`);
    await field(laptop, 'Current password').fill(FIRST_PASSWORD);
    await field(laptop, 'New password').fill(SECOND_PASSWORD);
    await field(laptop, 'Confirm new password').fill(SECOND_PASSWORD);
    await laptop.getByRole('button', { name: 'Change password' }).click();
    const confirmation = laptop.locator('.success');
    await confirmation.waitFor();
    expect(await confirmation.getAttribute('role')).toBe('status');
    expect(await confirmation.textContent()).toContain('Your password has been changed. You are still signed in on this device.');
    expect(await confirmation.textContent()).toContain('1 other device was signed out.');
    await screenshot(laptop, 'settings-changed-desktop');

    // This device keeps its session across a reload; the other one lost its session.
    await laptop.reload();
    await field(laptop, 'Current password').waitFor();
    expect(laptop.url()).toBe(`${DEFAULT_REALM}/settings`);
    await phone.reload();
    await phone.waitForURL(`${DEFAULT_REALM}/login?next=%2Faccount`);

    await laptop.getByRole('button', { name: 'Sign out' }).click();
    await laptop.waitForURL(`${DEFAULT_REALM}/login`);
    await laptop.goto(`${DEFAULT_REALM}/account`);
    await laptop.waitForURL(`${DEFAULT_REALM}/login?next=%2Faccount`);

    await submitSignIn(laptop, ada.email, FIRST_PASSWORD);
    expect(await waitForErrorNextTo(laptop, 'password')).toBe(message('credentials_invalid', 'en'));
    await screenshot(laptop, 'login-failed-desktop');

    await submitSignIn(laptop, ada.email, SECOND_PASSWORD);
    await laptop.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await laptop.locator('.account-email').textContent()).toBe(ada.email);
  });

  it('puts every field error next to its field, from the browser checks and from the server', async () => {
    const taken = person('taken');
    await register(await (await context()).newPage(), DEFAULT_REALM, taken);

    const page = await (await context()).newPage();
    await page.goto(`${DEFAULT_REALM}/register`);

    // Leaving an edited field shows its error without moving anything below it.
    const before = await page.locator('#password2').boundingBox();
    await field(page, 'Email address').fill('not-an-email');
    await field(page, 'Email address').press('Tab');
    expect(await waitForErrorNextTo(page, 'email')).toBe(message('invalid_email', 'en'));
    expect(await page.locator('#password2').boundingBox()).toEqual(before);
    await field(page, 'Email address').fill('');

    await page.getByRole('button', { name: 'Create account' }).click();
    const summary = page.locator('.error-summary');
    await summary.waitFor();
    expect(await summary.getAttribute('role')).toBe('alert');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('error-summary'))).toBe(true);
    expect(await summary.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '#name',
      '#email',
      '#password',
      '#password2',
    ]);
    for (const id of ['name', 'email', 'password', 'password2']) {
      expect(await page.locator(`#${id}`).getAttribute('aria-invalid')).toBe('true');
      expect(await errorNextTo(page, id)).toBe(message('required', 'en'));
    }

    await field(page, 'Name').fill('Grace Hopper');
    await field(page, 'Email address').fill('grace@');
    await field(page, 'Password').fill('too short');
    await field(page, 'Confirm password').fill('something else');
    expect(await errorNextTo(page, 'name')).toBe('');
    expect(await errorNextTo(page, 'email')).toBe(message('invalid_email', 'en'));
    expect(await errorNextTo(page, 'password')).toBe(message('password_too_short', 'en', { min: 15 }));
    expect(await errorNextTo(page, 'password2')).toBe(message('password_mismatch', 'en'));
    await screenshot(page, 'register-errors-desktop');
    await page.setViewportSize(PHONE);
    expect(await noSideScroll(page)).toBe(true);
    await screenshot(page, 'register-errors-phone');
    await page.setViewportSize(DESKTOP);

    // An error only the server can know, in the same words, next to its field.
    await field(page, 'Email address').fill(taken.email);
    await field(page, 'Password').fill(FIRST_PASSWORD);
    await field(page, 'Confirm password').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await waitForErrorNextTo(page, 'email')).toBe(message('email_taken', 'en'));
    expect(await summary.textContent()).toContain(message('email_taken', 'en'));
    expect(page.url()).toBe(`${DEFAULT_REALM}/register`);
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
    await screenshot(page, 'account-acme-desktop');

    // Each realm keeps its own signed-in user.
    await page.goto(`${DEFAULT_REALM}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(grace.email);

    // The acme account does not exist in the default realm.
    const stranger = await (await context()).newPage();
    await stranger.goto(`${DEFAULT_REALM}/login`);
    await submitSignIn(stranger, linus.email, linus.password);
    expect(await waitForErrorNextTo(stranger, 'password')).toBe(message('credentials_invalid', 'en'));
  });

  it('sends a signed-out visit to settings through sign-in and back to settings', async () => {
    const who = person('back');
    await register(await (await context()).newPage(), DEFAULT_REALM, who);

    const page = await (await context({ viewport: PHONE })).newPage();
    await page.goto(`${DEFAULT_REALM}/settings`);
    await page.waitForURL(`${DEFAULT_REALM}/login?next=%2Fsettings`);
    expect(await noSideScroll(page)).toBe(true);
    await screenshot(page, 'login-phone');
    await submitSignIn(page, who.email, who.password);
    await page.waitForURL(`${DEFAULT_REALM}/settings`);
    expect(await heading(page).textContent()).toBe('Change password');
    await field(page, 'Current password').waitFor();
    await screenshot(page, 'settings-phone');
  });

  it('sends one registration for a double click', async () => {
    const page = await (await context()).newPage();
    let registrations = 0;
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/trpc/account.register') registrations += 1;
    });
    await page.goto(`${DEFAULT_REALM}/register`);
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
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'name'; i++) await page.keyboard.press('Tab');
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
    await screenshot(page, 'register-phone');
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${DEFAULT_REALM}/account`);
    expect(await page.locator('.account-email').textContent()).toBe(who.email);
    expect(await noSideScroll(page)).toBe(true);
  });

  it('follows the browser language, like the server', async () => {
    const page = await (await context({ locale: 'de-DE' })).newPage();
    await page.goto(`${DEFAULT_REALM}/login`);
    expect(await heading(page).textContent()).toBe('Anmelden');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await field(page, 'E-Mail-Adresse').fill(uniqueEmail('niemand'));
    await field(page, 'Passwort').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    expect(await waitForErrorNextTo(page, 'password')).toBe(message('credentials_invalid', 'de'));
    await screenshot(page, 'login-failed-de-desktop');
  });
});
