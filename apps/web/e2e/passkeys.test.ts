import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { message } from '@accounts/validators';
import { describe, expect, inject, it } from 'vitest';
import { auditBothSizes } from './support/audit';
import { DESKTOP, heading, useBrowser } from './support/browser';
import { field, person, register, submitSignIn, summaryAfterSubmit } from './support/flows';

// Passkeys through the pages, against the real gateway, with Chromium's virtual authenticator
// (DevTools protocol: a CTAP2 platform authenticator with resident keys and user verification,
// which answers every prompt as a person touching it would). The gateway's realm is its host:
// `localhost` for the default realm, `acme.localhost` for the realm "acme".

const port = inject('port');
const BASE = `http://localhost:${port}`;
const ACME = `http://acme.localhost:${port}`;
const RECOVERY_CODE = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/;

interface Authenticator {
  cdp: CDPSession;
  id: string;
  /**
   * Whether it answers at once, as a person touching it would. Chromium's virtual authenticator
   * also answers the autofill's request (conditional mediation) that way, which a person does by
   * picking the passkey in the address field's suggestions: the sign-in page signs in by itself.
   * Off, requests wait (as for a person who has not chosen yet).
   */
  presence(enabled: boolean): Promise<void>;
  /** The passkeys the authenticator holds: which site (RP ID) each is for. */
  credentials(): Promise<{ rpId?: string; isResidentCredential: boolean; signCount: number }[]>;
}

/** A virtual authenticator on this page, as a phone or laptop with a fingerprint reader would be. */
async function virtualAuthenticator(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    id,
    presence: async (enabled) => {
      await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: id, enabled });
    },
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId: id })).credentials,
  };
}

/** The passkey procedures the page called, in order (tRPC paths after /trpc/). */
function passkeyCalls(page: Page) {
  const calls: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/trpc/passkeys.')) calls.push(path.slice('/trpc/'.length));
  });
  return calls;
}

async function signOut(page: Page, base = BASE) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/login`);
  await field(page, 'Email address').waitFor();
}

/** From the account page: the passkeys page, then a passkey added by the authenticator; the recovery codes it brings. */
async function addPasskey(page: Page, name: string, audited = false): Promise<string[]> {
  const link = page.getByRole('link', { name: 'Passkeys' });
  await page.locator('.passkeys-badge', { hasText: 'None yet' }).waitFor();
  await link.click();
  await page.waitForURL(`${BASE}/settings/passkeys`);
  await page.getByText('You have no passkeys yet.').waitFor();
  if (audited) await auditBothSizes(page, 'passkeys-none', DESKTOP);

  await field(page, 'Name (optional)').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('heading', { level: 2, name: 'Save your recovery codes' }).waitFor();
  return page.locator('.codes code').allTextContents();
}

async function newContext(context: (options?: object) => Promise<BrowserContext>) {
  return (await context()).newPage();
}

describe.skipIf(port === null)('passkeys in Chromium', () => {
  const { context } = useBrowser();

  it('adds a passkey on its page (the recovery codes shown once), renames it, and lists it', async () => {
    const ada = person('passkey-add');
    const page = await newContext(context);
    const authenticator = await virtualAuthenticator(page);
    await register(page, BASE, ada);

    const codes = await addPasskey(page, 'Test laptop', true);
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
    expect(
      await page
        .getByText(
          'Your passkey was added, and two-step sign-in is now on: signing in with your password also asks for your passkey.',
        )
        .count(),
    ).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save your recovery codes');
    // A discoverable credential for this realm's host, kept by the authenticator.
    const held = await authenticator.credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });
    await auditBothSizes(page, 'passkeys-codes', DESKTOP);

    await page.getByRole('link', { name: 'Done' }).click();
    await page.getByText('Your passkey Test laptop was added.').waitFor();
    const item = page.locator('.passkey');
    expect(await item.locator('h2').textContent()).toBe('Test laptop');
    expect(await item.locator('.passkey-times').textContent()).toMatch(/^Added (now|\d+ seconds? ago) · Not used yet$/);
    expect(await page.locator('.codes').count()).toBe(0);
    await auditBothSizes(page, 'passkeys-list', DESKTOP);
    // Shown once: a reload shows the list, never the codes.
    await page.reload();
    await item.waitFor();
    expect(await page.content()).not.toContain(codes[0]);

    await page.getByRole('link', { name: 'Rename Test laptop' }).click();
    const name = field(page, 'Name of the passkey');
    expect(await name.inputValue()).toBe('Test laptop');
    await name.fill('');
    // Enter, as a click would land where the button was before the field's error (shown when the
    // field is left) moved it.
    await name.press('Enter');
    await summaryAfterSubmit(page);
    await auditBothSizes(page, 'passkeys-rename-errors', DESKTOP);
    await name.fill('Work laptop');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('The passkey is now called Work laptop.').waitFor();
    await page.locator('.passkey h2', { hasText: 'Work laptop' }).waitFor();

    // The account and two-step pages say so.
    await page.goto(`${BASE}/account`);
    await page.locator('.passkeys-badge', { hasText: '1' }).waitFor();
    await page.locator('.two-step-badge', { hasText: 'On' }).waitFor();
    await page.goto(`${BASE}/settings/two-step`);
    await page.getByText('Two-step sign-in is on through your passkeys.').waitFor();
    expect(await page.locator('#two-step-state').textContent()).toContain('Unused recovery codes: 10');
    await page.getByRole('heading', { level: 2, name: 'Authenticator app' }).waitFor();
    await auditBothSizes(page, 'two-step-passkeys', DESKTOP);

    await page.goto(`${BASE}/settings/activity`);
    await page.locator('.event').nth(2).waitFor();
    const events = await page.locator('.event .event-what strong').allTextContents();
    expect(events).toContain('Passkey added');
    expect(events).toContain('Passkey renamed');
  });

  it('signs in with the passkey (button and autofill), asks for it after a password, and for the password before adding one', async () => {
    const bea = person('passkey-sign-in', 'Bea Schmidt');
    const page = await newContext(context);
    const authenticator = await virtualAuthenticator(page);
    const calls = passkeyCalls(page);
    await register(page, BASE, bea);
    await addPasskey(page, 'Phone');
    await page.getByRole('link', { name: 'Done' }).click();
    // Nobody picks a passkey in the address field's suggestions yet: the autofill's request waits.
    await authenticator.presence(false);
    await signOut(page);

    // Without an address typed: the authenticator's passkey names the account.
    await page.goto(`${BASE}/login?next=%2Fsettings%2Fpasskeys`);
    await field(page, 'Email address').waitFor();
    expect(await field(page, 'Email address').getAttribute('autocomplete')).toBe('username webauthn');
    // The autofill's request is open (its options asked for once), and says nothing.
    await page.waitForFunction(
      () => performance.getEntriesByName(`${location.origin}/trpc/passkeys.signInOptions`).length > 0,
    );
    await auditBothSizes(page, 'login-passkey', DESKTOP);
    await authenticator.presence(true);
    calls.length = 0;
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${BASE}/settings/passkeys`);
    await page.locator('.passkey-times', { hasText: /Last used (now|\d+ seconds? ago)/ }).waitFor();
    expect(calls).toEqual(['passkeys.signInOptions', 'passkeys.signIn', 'passkeys.list']);
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);

    // A session begun with a passkey proved no password: adding another asks for it first.
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const password = field(page, 'Current password');
    await password.waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'current_password');
    expect(await page.locator('.error-summary').count()).toBe(0);
    await auditBothSizes(page, 'passkeys-recheck', DESKTOP);
    await password.fill(bea.password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    // This authenticator holds this account's passkey already (the options exclude it).
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toBe(
      'This device already has a passkey for your account.',
    );
    expect(await authenticator.credentials()).toHaveLength(1);

    // The password alone no longer signs in: the passkey is the second step, codes the other way.
    await authenticator.presence(false);
    await signOut(page);
    await submitSignIn(page, bea.email, bea.password);
    const use = page.getByRole('button', { name: 'Use your passkey' });
    await use.waitFor();
    expect(page.url()).toBe(`${BASE}/login`);
    expect(await heading(page).textContent()).toBe('Sign in');
    await page.waitForFunction(() => document.activeElement?.id === 'use-passkey');
    await field(page, 'Recovery code').waitFor();
    expect(await page.getByRole('button', { name: 'Use your authenticator app instead' }).count()).toBe(0);
    await auditBothSizes(page, 'login-passkey-step', DESKTOP);
    await authenticator.presence(true);
    calls.length = 0;
    await use.click();
    await page.waitForURL(`${BASE}/account`);
    expect(calls.slice(0, 2)).toEqual(['passkeys.secondStepOptions', 'passkeys.secondStep']);

    // The passkey picked in the address field's suggestions signs in, nothing clicked.
    await signOut(page);
    await page.waitForURL(`${BASE}/account`);
    expect(calls).toContain('passkeys.signIn');
  });

  it('removes the passkey with the password, after which the password alone signs in and the passkey does not', async () => {
    const cy = person('passkey-remove', 'Cy Young');
    const page = await newContext(context);
    await virtualAuthenticator(page);
    await register(page, BASE, cy);
    await addPasskey(page, 'Laptop');
    await page.getByRole('link', { name: 'Done' }).click();

    await page.getByRole('link', { name: 'Remove Laptop' }).click();
    const password = field(page, 'Current password');
    await password.waitFor();
    await page
      .getByText('It is your only second step: two-step sign-in turns off, and your recovery codes are deleted.')
      .waitFor();
    await page.getByRole('button', { name: 'Remove Laptop' }).click();
    await summaryAfterSubmit(page);
    await password.fill('not the password at all');
    await password.press('Enter');
    await page.waitForFunction(() => document.getElementById('current_password-error')?.textContent);
    expect(await page.locator('#current_password-error').textContent()).toBe(message('password_incorrect', 'en'));
    await auditBothSizes(page, 'passkeys-remove', DESKTOP);
    await password.fill(cy.password);
    await page.getByRole('button', { name: 'Remove Laptop' }).click();
    await page
      .getByText('Laptop was removed. Two-step sign-in is off, and your recovery codes were deleted.')
      .waitFor();
    await page.getByText('You have no passkeys yet.').waitFor();
    await page.goto(`${BASE}/settings/activity`);
    await page.locator('.event', { hasText: 'Passkey removed' }).waitFor();

    // The authenticator still holds it and offers it at once, but the account no longer knows it.
    await signOut(page);
    await summaryAfterSubmit(page);
    expect(await page.locator('.error-summary').textContent()).toBe(message('passkey_rejected', 'en'));
    expect(page.url()).toBe(`${BASE}/login`);
    // The password alone signs in again.
    await submitSignIn(page, cy.email, cy.password);
    await page.waitForURL(`${BASE}/account`);
    await page.locator('.two-step-badge', { hasText: 'Off' }).waitFor();
  });

  it('a passkey made in the default realm does not sign in to another realm', async () => {
    const dee = person('passkey-realm', 'Dee Realm');
    const page = await newContext(context);
    const authenticator = await virtualAuthenticator(page);
    await register(page, BASE, dee);
    await addPasskey(page, 'Laptop');
    await page.getByRole('link', { name: 'Done' }).click();
    // The same address has an account in the realm "acme" too.
    await authenticator.presence(false);
    await signOut(page);
    await register(page, ACME, dee);
    await signOut(page, ACME);
    await authenticator.presence(true);

    const calls = passkeyCalls(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // The browser has none for this realm's host: the prompt ends without one, calmly said.
    await page
      .getByText('No passkey was used: the request was cancelled or timed out. Try again when you are ready.')
      .waitFor();
    expect(page.url()).toBe(`${ACME}/login`);
    expect(calls).not.toContain('passkeys.signIn');
    expect((await authenticator.credentials()).map((c) => c.rpId)).toEqual(['localhost']);
    await auditBothSizes(page, 'login-acme-passkey-none', DESKTOP);

    // Where it was made, the autofill offers it and it signs in.
    await page.goto(`${BASE}/login`);
    await page.waitForURL(`${BASE}/account`);
    // The hub's own code loads after the sign-in: then the account it signed in to.
    await page.locator('.account-email').waitFor();
  });
});
