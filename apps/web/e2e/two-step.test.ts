import { readFile } from 'node:fs/promises';
import { parseOtpauth, totpCode } from '@accounts/testing';
import { message } from '@accounts/validators';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { auditBothSizes } from './support/audit';
import { DESKTOP, heading, useBrowser } from './support/browser';
import { field, person, register, submitSignIn, summaryAfterSubmit, type Person } from './support/flows';

// Two-step sign-in through the pages, against the real gateway: the code an authenticator app
// would show is computed from the key the page shows by an independent RFC 6238 implementation
// (@accounts/testing), never by the service's own library.

const port = inject('port');
const BASE = `http://localhost:${port}`;
const RECOVERY_CODE = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/;

/** A six-digit code the app does not show now, nor one step either side of now. */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((offset) => totpCode(secret, Date.now(), offset)));
  return ['000000', '111111', '222222', '333333'].find((code) => !near.has(code))!;
}

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${BASE}/login`);
  await field(page, 'Email address').waitFor();
}

/** From the account page: sets up the app with the key the page shows, and turns it on. */
async function turnOn(page: Page, who: Person, audited = false) {
  await page.getByRole('link', { name: 'Two-step sign-in', exact: true }).click();
  await page.waitForURL(`${BASE}/settings/two-step`);
  await page.getByText('Two-step sign-in is off.').waitFor();
  if (audited) await auditBothSizes(page, 'two-step-off', DESKTOP);

  await page.getByRole('button', { name: 'Set up' }).click();
  const qr = page.getByRole('img', { name: 'QR code that adds this account to an authenticator app' });
  await qr.waitFor();
  // The server's SVG, shown as a data: image (the page's CSP allows it): it has loaded.
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('.totp-qr');
    return img?.complete && img.naturalWidth > 0;
  });
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
  // The key as the page shows it (in groups of four), and the same key in the otpauth:// link.
  const shown = (await page.locator('.totp-key code').textContent()) ?? '';
  expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  const secret = shown.replace(/ /g, '');
  const uri = await page.getByRole('link', { name: /Open the set-up in your authenticator app/ }).getAttribute('href');
  const otpauth = parseOtpauth(uri!);
  expect(otpauth).toMatchObject({ secret, label: `Accounts:${who.email}`, digits: 6, period: 30 });
  if (audited) await auditBothSizes(page, 'two-step-setup', DESKTOP);

  await field(page, '6-digit code').fill(totpCode(secret));
  await field(page, 'Current password').fill(who.password);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('heading', { level: 2, name: 'Save your recovery codes' }).waitFor();
  const codes = await page.locator('.codes code').allTextContents();
  return { secret, codes };
}

async function newContext(context: (options?: object) => Promise<BrowserContext>) {
  const ctx = await context();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  return ctx;
}

describe.skipIf(port === null)('two-step sign-in in Chromium', () => {
  const { context } = useBrowser();

  it('turns on with the code an app computes from the page, signs in with an app code and with a recovery code, and turns off', async () => {
    const ada = person('two-step');
    const ctx = await newContext(context);
    const page = await ctx.newPage();
    await register(page, BASE, ada);
    expect(await page.locator('.two-step-badge').textContent()).toBe('Off');

    const { secret, codes } = await turnOn(page, ada, true);
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
    expect(new Set(codes).size).toBe(10);
    expect(await page.getByText('Two-step sign-in is now on.').count()).toBe(1);
    expect(await page.getByText(/These codes are shown only this once/).count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save your recovery codes');

    await page.getByRole('button', { name: 'Copy codes' }).click();
    await page.locator('.codes-actions').getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as a text file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    const file = await readFile(await download.path(), 'utf8');
    expect(file).toContain(`Recovery codes for ${ada.email} (Accounts).`);
    expect(file.trim().split('\n').slice(-10)).toEqual(codes);
    await auditBothSizes(page, 'two-step-codes', DESKTOP);

    await page.getByRole('link', { name: 'Done' }).click();
    await page.getByText('Two-step sign-in is on.').waitFor();
    expect(await page.locator('#two-step-state').textContent()).toContain('Unused recovery codes: 10');
    expect(await page.locator('.codes').count()).toBe(0);
    await auditBothSizes(page, 'two-step-on', DESKTOP);
    // Shown once: a reload shows the state, never the codes.
    await page.reload();
    await page.getByText('Two-step sign-in is on.').waitFor();
    expect(await page.content()).not.toContain(codes[0]);

    // The password alone no longer signs in: the same page asks for the code.
    await signOut(page);
    await submitSignIn(page, ada.email, ada.password);
    const code = field(page, '6-digit code');
    await code.waitFor();
    expect(page.url()).toBe(`${BASE}/login`);
    expect(await heading(page).textContent()).toBe('Sign in');
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(
      'Enter the 6-digit code from your authenticator app',
    );
    expect(await code.getAttribute('name')).toBe('code');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await code.getAttribute('inputmode')).toBe('numeric');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('code');
    // The pending sign-in is the server's: an HttpOnly, SameSite=Strict cookie, and no session yet.
    const pending = (await ctx.cookies(BASE)).find((c) => c.name === 'pending_sign_in');
    expect(pending).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('pending_sign_in');
    await auditBothSizes(page, 'login-code', DESKTOP);

    await code.fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toContain(message('code_incorrect', 'en'));
    await auditBothSizes(page, 'login-code-wrong', DESKTOP);

    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    const recovery = field(page, 'Recovery code');
    await recovery.waitFor();
    expect(await recovery.getAttribute('inputmode')).toBeNull();
    expect(await recovery.getAttribute('autocomplete')).toBe('off');
    await auditBothSizes(page, 'login-recovery-code', DESKTOP);
    await page.getByRole('button', { name: 'Use your authenticator app instead' }).click();
    // The next step's code: the one the set-up used is not taken twice.
    await field(page, '6-digit code').fill(totpCode(secret, Date.now(), 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${BASE}/account`);
    await page.locator('.two-step-badge', { hasText: 'On' }).waitFor();

    // A recovery code signs in once, onto the account page, which is told one was used.
    await signOut(page);
    await submitSignIn(page, ada.email, ada.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await field(page, 'Recovery code').fill(codes[0]!.toUpperCase());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${BASE}/account?notice=recovery_code_used`);
    await signOut(page);
    await submitSignIn(page, ada.email, ada.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await field(page, 'Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toContain(message('code_incorrect', 'en'));
    await field(page, 'Recovery code').fill(codes[1]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${BASE}/account?notice=recovery_code_used`);

    // The activity page names what happened, in plain words: each sign-in's first step is part of
    // the sign-in it led to, and the repeats of the day are one row each with their count.
    await page.goto(`${BASE}/settings/activity`);
    await page.locator('.event').nth(3).waitFor();
    expect(await page.locator('.day-heading').allTextContents()).toEqual(['Today']);
    const events = await page.locator('.event .event-what strong').allTextContents();
    for (const label of ['Two-step sign-in turned on', 'Wrong two-step sign-in code entered', 'Recovery code used'])
      expect(events, label).toContain(label);
    expect(events.join()).not.toMatch(/code asked|second step/);
    const wrong = page.locator('.event.failed', { hasText: 'Wrong two-step sign-in code entered' });
    expect(await wrong.count()).toBe(1);
    expect(await wrong.locator('.event-count').textContent()).toBe('2 times');
    expect(await wrong.locator('.event-advice').textContent()).toBe(
      'Wasn’t you? Change your password and sign out everywhere.',
    );
    // The row opens to its times without a script of its own: a <details>.
    expect(await wrong.locator('.event-times time').count()).toBe(2);
    expect(await wrong.locator('.event-times').isVisible()).toBe(false);
    await wrong.locator('summary').click();
    expect(await wrong.locator('.event-times').isVisible()).toBe(true);
    await auditBothSizes(page, 'activity-repeats', DESKTOP);
    // Three sign-ins from this browser today: fewer rows (the repeats counted in one), three in all.
    const signIns = page.locator('.event', { has: page.locator('strong', { hasText: /^Signed in$/ }) });
    const counted = await signIns.evaluateAll((rows) =>
      rows.map((row) => Number(/^(\d+) times$/.exec(row.querySelector('.event-count')?.textContent ?? '')?.[1] ?? 1)),
    );
    expect(counted.length).toBeLessThan(3);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(3);

    // Off, with the password and a recovery code: the password alone signs in again.
    await page.goto(`${BASE}/settings/two-step`);
    await page.getByText('Two-step sign-in is on.').waitFor();
    expect(await page.locator('#two-step-state').textContent()).toContain('Unused recovery codes: 8');
    await page.getByRole('link', { name: 'Turn off' }).click();
    await field(page, 'Current password').fill(ada.password);
    await field(page, 'Code from your app, or a recovery code').fill(codes[2]!);
    await auditBothSizes(page, 'two-step-turn-off', DESKTOP);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Two-step sign-in is off. Your recovery codes were deleted.').waitFor();
    await page.getByRole('button', { name: 'Set up' }).waitFor();
    await signOut(page);
    await submitSignIn(page, ada.email, ada.password);
    await page.waitForURL(`${BASE}/account`);
    expect(await page.locator('.two-step-badge').textContent()).toBe('Off');
  });

  it('makes new recovery codes, after which the old ones no longer sign in', async () => {
    const bea = person('two-step-codes', 'Bea Schmidt');
    const page = await (await newContext(context)).newPage();
    await register(page, BASE, bea);
    const { codes: old } = await turnOn(page, bea);
    await page.getByRole('link', { name: 'Done' }).click();

    await page.getByRole('link', { name: 'Make new codes' }).click();
    await field(page, 'Current password').fill(bea.password);
    await page.getByRole('button', { name: 'Make new codes' }).click();
    await page.getByText('Here are your new recovery codes. The old ones no longer work.').waitFor();
    const fresh = await page.locator('.codes code').allTextContents();
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => old.includes(code))).toEqual([]);
    await page.getByRole('link', { name: 'Done' }).click();

    await signOut(page);
    await submitSignIn(page, bea.email, bea.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await field(page, 'Recovery code').fill(old[0]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toContain(message('code_incorrect', 'en'));
    await field(page, 'Recovery code').fill(fresh[0]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${BASE}/account?notice=recovery_code_used`);
  });

  it('after five wrong codes, goes back to the password and says why', async () => {
    const cy = person('two-step-void', 'Cy Young');
    const page = await (await newContext(context)).newPage();
    await register(page, BASE, cy);
    const { secret } = await turnOn(page, cy);
    await page.getByRole('link', { name: 'Done' }).click();
    await signOut(page);

    await page.goto(`${BASE}/login?next=%2Fsettings%2Ftwo-step`);
    await submitSignIn(page, cy.email, cy.password);
    const code = field(page, '6-digit code');
    for (let i = 1; i <= 4; i++) {
      await code.fill(wrongCode(secret));
      await page.getByRole('button', { name: 'Sign in' }).click();
      // Each wrong code is said in the summary, which takes focus once the answer is in.
      expect(await summaryAfterSubmit(page), `wrong code ${i}`).toBe('Please correct the following:');
      expect(await page.locator('.error-summary').textContent()).toContain(message('code_incorrect', 'en'));
      // Once two tries remain, the code step says how many.
      expect(await page.locator('#attempts-left').textContent()).toBe(['', '', '2 tries left.', '1 try left.'][i - 1]);
    }
    await code.fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Too many wrong codes: back to the password, with the wait.
    const ended = page.locator('.sign-in-expired');
    await ended.waitFor();
    expect(await ended.textContent()).toMatch(/^Too many wrong codes\. Try again in about \d+ minutes?\.$/);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('sign-in-expired'))).toBe(true);
    expect(await field(page, 'Email address').inputValue()).toBe(cy.email);
    expect(await field(page, 'Password').inputValue()).toBe('');
    expect(await page.locator('#code').count()).toBe(0);
    await auditBothSizes(page, 'login-code-expired', DESKTOP);
  });
});
