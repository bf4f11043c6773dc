// The tests check the app's words in every language, as the server has them.
import '@accounts/validators/all-messages';
import type { Page } from 'playwright-core';
import { STRONG, STRONG2, uniqueEmail } from '@accounts/testing';

export { uniqueEmail };
export const FIRST_PASSWORD = STRONG;
export const SECOND_PASSWORD = STRONG2;

export interface Person {
  name: string;
  email: string;
  password: string;
}

export const person = (tag: string, name = 'Ada Lovelace'): Person => ({
  name,
  email: uniqueEmail(tag),
  password: FIRST_PASSWORD,
});

/**
 * Waits until the app runs the page the server sent: every control of it is React's (hydrated).
 * Before that the page works as it does without scripts (its forms post to the server), so a test
 * of what the app does (focus, checks as one types, no reload) waits for this first.
 */
export const appRunning = (page: Page) =>
  page.waitForFunction(() => {
    const root = document.getElementById('root');
    const isReacts = (el: Element) => Object.keys(el).some((key) => key.startsWith('__reactProps$'));
    const controls = [...(root?.querySelectorAll('a, button, input, select, textarea, form') ?? [])];
    return root !== null && controls.length > 0 && controls.every(isReacts);
  });

/** An input by its visible label (exact, so the "Show …" toggles do not match). */
export const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

export async function fillRegistration(page: Page, who: Person) {
  await field(page, 'Name').fill(who.name);
  await field(page, 'Email address').fill(who.email);
  await field(page, 'Password').fill(who.password);
  await field(page, 'Confirm password').fill(who.password);
}

export async function register(page: Page, base: string, who: Person) {
  await page.goto(`${base}/register`);
  await fillRegistration(page, who);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${base}/account`);
}

export async function submitSignIn(page: Page, email: string, password: string) {
  await field(page, 'Email address').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The heading of the error summary once it has taken focus after a submit. */
export async function summaryAfterSubmit(page: Page): Promise<string> {
  await page.waitForFunction(() => document.activeElement?.classList.contains('error-summary'));
  return (await page.locator('.error-summary h2').textContent()) ?? '';
}

export const noSideScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
