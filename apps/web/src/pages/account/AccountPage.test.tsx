import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, DEFAULT_SETTINGS, signedInAs, TWO_STEP_ON, type Reply } from '../../test/fake-api';
import { renderApp } from '../../test/render-app';

const rowOf = (name: string) => screen.getByRole('link', { name }).closest('li')!;

describe('the account hub', () => {
  it('holds its sections, each row with what it is and its state in words, and a way to each section', async () => {
    renderApp('/account', {
      'account.me': () => signedInAs(ADA),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
    });
    await screen.findByRole('region', { name: 'Profile' });
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Profile',
      'Sign-in & security',
      'Your data',
    ]);
    const nav = screen.getByRole('navigation', { name: 'Your account' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.getAttribute('href')),
    ).toEqual(['#profile', '#security', '#data']);
    const profile = screen.getByRole('region', { name: 'Profile' });
    expect(within(profile).getByRole('link', { name: 'Change your name' }).closest('li')!.textContent).toContain(
      ADA.name,
    );
    // A named realm (Acme Inc) has its row.
    expect(profile.querySelector('.account-realm')?.textContent).toBe('Acme Inc acme');
    await waitFor(() =>
      expect(rowOf('Two-step sign-in').textContent).toBe('Two-step sign-inOff: Only your password is asked'),
    );
    await waitFor(() => expect(rowOf('Passkeys').textContent).toBe('PasskeysNone yet'));
    expect(rowOf("Where you're signed in").querySelector('.hub-row-state')?.textContent).toBe(
      'Devices and browsers signed in to your account',
    );
    // Deleting the account is danger, last, in its own section.
    const data = screen.getByRole('region', { name: 'Your data' });
    expect(
      within(data)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Download your data', 'Delete your account']);
    expect(rowOf('Delete your account').className).toBe('hub-row hub-row-danger');
    // The header holds the hub and signing out, nothing else.
    const header = screen.getByRole('navigation', { name: 'Main' });
    expect(
      within(header)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Account']);
  });

  it('says what two-step sign-in asks for and how many codes are left, in German too; no realm row for the unnamed default realm', async () => {
    const both = { ...TWO_STEP_ON, methods: ['passkey', 'totp', 'recovery_code'] as const, recoveryCodesLeft: 1 };
    renderApp(
      '/account',
      {
        'account.settings': () => ({ data: DEFAULT_SETTINGS }),
        'account.me': (): Reply<'account.me'> => signedInAs(ADA, { ...both, methods: [...both.methods] }),
        'passkeys.list': () => ({ data: { passkeys: [] } }),
      },
      'de',
    );
    await waitFor(() =>
      expect(rowOf('Anmeldung in zwei Schritten').textContent).toBe(
        'Anmeldung in zwei SchrittenAn: mit einem Passkey und einer Authenticator-App; noch 1 Wiederherstellungscode',
      ),
    );
    expect(document.querySelector('.account-realm')).toBeNull();
    // One code left: a banner asks for new ones, and leads there.
    const banner = document.querySelector('.few-codes')!;
    expect(banner.textContent).toBe(
      'Nur noch 1 Wiederherstellungscode: Erstellen Sie neue, bevor er ausgeht. Neue Wiederherstellungscodes erstellen',
    );
    expect(
      within(banner as HTMLElement)
        .getByRole('link')
        .getAttribute('href'),
    ).toBe('/settings/two-step');
  });

  it('asks for nothing while more than three recovery codes are left, or two-step sign-in is off', async () => {
    renderApp('/account', {
      'account.me': () => signedInAs(ADA, { ...TWO_STEP_ON, recoveryCodesLeft: 4 }),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
    });
    await waitFor(() => expect(rowOf('Two-step sign-in').textContent).toContain('4 recovery codes left'));
    expect(document.querySelector('.few-codes')).toBeNull();
  });
});
