import { message } from '@accounts/validators';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  ADA,
  DEFAULT_SETTINGS,
  problem,
  signedInAs,
  THREE_DAYS_AGO,
  TWO_STEP_OFF,
  TWO_STEP_ON,
  type Handlers,
  type Reply,
} from '../../test/fake-api';
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

describe('what the hub says of the password', () => {
  it('says when it last changed, in words, with the date in its title, in every language', async () => {
    for (const [locale, words] of [
      ['en', 'Last changed 3 days ago'],
      ['de', 'Zuletzt geändert vor 3 Tagen'],
      ['fr', 'Dernière modification il y a 3 jours'],
    ] as const) {
      const { unmount } = renderApp('/account', { 'account.me': () => signedInAs(ADA) }, locale);
      await waitFor(() => expect(document.querySelector('.password-changed')?.textContent).toBe(words));
      const time = document.querySelector('.password-changed time')!;
      expect(time.getAttribute('dateTime')).toBe(THREE_DAYS_AGO);
      unmount();
    }
  });

  it('says there is none for an account made by signing in elsewhere', async () => {
    renderApp('/account', {
      'account.me': () => signedInAs(ADA, undefined, { passwordChangedAt: null, suggestSecondFactor: false }),
    });
    await waitFor(() =>
      expect(rowOf('Change your password').querySelector('.hub-row-state')?.textContent).toBe(
        'None: you sign in with another account',
      ),
    );
  });
});

describe('the hub just after registering', () => {
  const REGISTERED = { registered: true };
  const registered = (handlers: Handlers = {}, locale: 'en' | 'de' = 'en') =>
    renderApp('/account', { 'account.me': () => signedInAs(ADA), ...handlers }, locale, REGISTERED);

  it('says where the confirmation link went, in one status box, and sends it again from there', async () => {
    const { user, api } = registered({
      'email.resendVerification': () => ({ data: { ok: true, alreadyVerified: false } }),
    });
    const box = await waitFor(() => {
      const found = document.getElementById('registered-said');
      if (!found) throw new Error('no notice yet');
      return found;
    });
    expect(box.getAttribute('role')).toBe('status');
    expect(box.className).toBe('success');
    expect(box.textContent).toBe(
      `We sent a confirmation link to ${ADA.email}. Open it to confirm your address.Send it again · Wrong address? Change it`,
    );
    expect(within(box).getByRole('link', { name: 'Change it' }).getAttribute('href')).toBe('/settings/email');
    // The one way to get the link again on the page: the email row only says the address is not confirmed.
    await waitFor(() => expect(document.querySelector('.email-status')?.textContent).toBe(' (Not confirmed yet)'));
    expect(screen.getAllByRole('button', { name: /Send/ })).toHaveLength(1);

    await user.click(within(box).getByRole('button', { name: 'Send it again' }));
    await waitFor(() =>
      expect(box.firstElementChild?.textContent).toBe(`We sent a new confirmation link to ${ADA.email}.`),
    );
    expect(api.callsTo('email.resendVerification')).toHaveLength(1);
    expect(box.className).toBe('success');
    expect(within(box).queryByRole('button')).toBeNull();
    expect(within(box).getByRole('link', { name: 'Change it' })).toBeTruthy();
    // Its button gone, focus is on what the box now says.
    await waitFor(() => expect(document.activeElement).toBe(box));
  });

  it('says a refusal in the same box, and keeps the button to try later', async () => {
    const { user } = registered({
      'email.resendVerification': () => problem(429, 'rate_limited', { retryAfter: 600 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Send it again' }));
    const box = document.getElementById('registered-said')!;
    await waitFor(() => expect(box.className).toBe('notice'));
    expect(box.firstElementChild?.textContent).toBe(message('rate_limited', 'en', { retryAfter: 600 }));
    expect(within(box).getByRole('button', { name: 'Send it again' })).toBeTruthy();
  });

  it('in German, and not at all once the address is confirmed', async () => {
    const { unmount } = registered({}, 'de');
    await waitFor(() =>
      expect(document.getElementById('registered-said')?.textContent).toBe(
        `Wir haben einen Bestätigungslink an ${ADA.email} gesendet. Öffnen Sie ihn, um Ihre Adresse zu bestätigen.Erneut senden · Falsche Adresse? Ändern`,
      ),
    );
    unmount();
    renderApp('/account', { 'account.me': () => signedInAs({ ...ADA, emailVerified: true }) }, 'en', REGISTERED);
    await screen.findByRole('region', { name: 'Profile' });
    expect(document.getElementById('registered-said')).toBeNull();
  });

  it('is not shown on the hub opened any other way', async () => {
    renderApp('/account', { 'account.me': () => signedInAs(ADA) });
    await screen.findByRole('region', { name: 'Profile' });
    expect(document.getElementById('registered-said')).toBeNull();
    expect(await screen.findByRole('button', { name: 'Send the link again' })).toBeTruthy();
  });
});

describe('the hub after a sign-in with a recovery code', () => {
  const opened = (left: number, locale?: 'de' | 'fr', path = '/account?notice=recovery_code_used') =>
    renderApp(path, { 'account.me': () => signedInAs(ADA, { ...TWO_STEP_ON, recoveryCodesLeft: left }) }, locale);
  const notice = () => document.getElementById('recovery-said');

  it('says so and how many codes are left, beside the banner that asks for new ones when few are', async () => {
    const { unmount } = opened(7);
    await waitFor(() => expect(notice()?.textContent).toBe('You signed in with a recovery code. 7 left.'));
    expect(notice()!.getAttribute('role')).toBe('status');
    expect(document.querySelector('.few-codes')).toBeNull();
    unmount();
    const one = opened(1);
    await waitFor(() => expect(notice()?.textContent).toBe('You signed in with a recovery code. 1 left.'));
    expect(document.querySelector('.few-codes')?.textContent).toContain('Only 1 recovery code is left');
    one.unmount();
    opened(0);
    await waitFor(() => expect(notice()?.textContent).toBe('You signed in with a recovery code. None left.'));
    expect(document.querySelector('.few-codes')?.textContent).toContain('No recovery codes are left');
  });

  it('in German and French', async () => {
    const { unmount } = opened(5, 'de');
    await waitFor(() =>
      expect(notice()?.textContent).toBe('Sie haben sich mit einem Wiederherstellungscode angemeldet. Noch 5 übrig.'),
    );
    unmount();
    opened(5, 'fr');
    await waitFor(() =>
      expect(notice()?.textContent).toBe('Vous vous êtes connecté avec un code de récupération. Il en reste 5.'),
    );
  });

  it('says nothing for another notice, or for an account without two-step sign-in', async () => {
    const { unmount } = opened(5, undefined, '/account?notice=something_else');
    await waitFor(() => expect(rowOf('Two-step sign-in').textContent).toContain('5 recovery codes left'));
    expect(notice()).toBeNull();
    unmount();
    renderApp('/account?notice=recovery_code_used', { 'account.me': () => signedInAs(ADA) });
    await waitFor(() => expect(rowOf('Two-step sign-in').textContent).toContain('Off'));
    expect(notice()).toBeNull();
  });
});

describe('the suggestion of a second factor', () => {
  const SUGGESTED = { passwordChangedAt: THREE_DAYS_AGO, suggestSecondFactor: true };
  const suggestion = () => document.querySelector<HTMLElement>('.suggestion');

  it('leads to passkeys and two-step sign-in, and once dismissed stays so (the account keeps it)', async () => {
    let dismissed = false;
    const { user, api } = renderApp('/account', {
      'account.me': () => signedInAs(ADA, TWO_STEP_OFF, { ...SUGGESTED, suggestSecondFactor: !dismissed }),
      'account.dismissSecondFactorSuggestion': () => {
        dismissed = true;
        return { data: { ok: true } };
      },
    });
    await waitFor(() => expect(suggestion()).not.toBeNull());
    const box = suggestion()!;
    expect(box.className).toBe('notice suggestion');
    expect(box.firstElementChild?.textContent).toBe(
      'Add a passkey or turn on two-step sign-in, so that your password alone does not get anyone into your account.',
    );
    expect(
      within(box)
        .getAllByRole('link')
        .map((a) => [a.textContent, a.getAttribute('href')]),
    ).toEqual([
      ['Add a passkey', '/settings/passkeys'],
      ['Set up two-step sign-in', '/settings/two-step'],
    ]);

    await user.click(within(box).getByRole('button', { name: 'Dismiss this suggestion' }));
    const said = await waitFor(() => {
      const found = document.getElementById('suggestion-said');
      if (!found?.textContent) throw new Error('not said yet');
      return found;
    });
    expect(said.textContent).toBe(
      'We won’t suggest it again, on any device. Passkeys and two-step sign-in stay under Sign-in & security.',
    );
    expect(said.className).toBe('success');
    await waitFor(() => expect(document.activeElement).toBe(said));
    expect(suggestion()).toBeNull();
    expect(api.callsTo('account.dismissSecondFactorSuggestion')).toHaveLength(1);
  });

  it('says a refusal in the box and keeps it', async () => {
    const { user } = renderApp('/account', {
      'account.me': () => signedInAs(ADA, TWO_STEP_OFF, SUGGESTED),
      'account.dismissSecondFactorSuggestion': () => problem(429, 'rate_limited', { retryAfter: 60 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Dismiss this suggestion' }));
    await waitFor(() =>
      expect(suggestion()?.querySelector('[role="alert"]')?.textContent).toBe(
        message('rate_limited', 'en', { retryAfter: 60 }),
      ),
    );
    expect(within(suggestion()!).getByRole('button', { name: 'Dismiss this suggestion' })).toBeTruthy();
  });

  it('in French and German; not shown when the account does not suggest it', async () => {
    for (const [locale, button] of [
      ['de', 'Vorschlag ausblenden'],
      ['fr', 'Masquer cette suggestion'],
    ] as const) {
      const { unmount } = renderApp(
        '/account',
        { 'account.me': () => signedInAs(ADA, TWO_STEP_OFF, SUGGESTED) },
        locale,
      );
      expect(await screen.findByRole('button', { name: button })).toBeTruthy();
      unmount();
    }
    renderApp('/account', { 'account.me': () => signedInAs(ADA, TWO_STEP_OFF) });
    await waitFor(() => expect(rowOf('Two-step sign-in').textContent).toContain('Off'));
    expect(suggestion()).toBeNull();
  });
});
