import { message } from '@accounts/validators';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RouterOutputs } from '../../trpc';
import { ADA, problem, signedInAs, TWO_STEP_OFF, UNAUTHENTICATED, type Reply } from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

// The browser's side of WebAuthn is @simplewebauthn/browser's: here it is a stand-in whose
// prompts each test answers (a passkey made, the prompt dismissed, a device that fails).
const browser = vi.hoisted(() => ({
  supported: true,
  startRegistration: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => ({
  browserSupportsWebAuthn: () => browser.supported,
  browserSupportsWebAuthnAutofill: () => Promise.resolve(false),
  startRegistration: browser.startRegistration,
  startAuthentication: vi.fn(),
  WebAuthnAbortService: { cancelCeremony: vi.fn() },
}));

type Passkey = RouterOutputs['passkeys']['list']['passkeys'][number];

const PASSWORD = 'violet tractor sings at midnight';
const CODES = Array.from({ length: 10 }, (_, i) => `abcd${i}-fghj${i}`);
const OPTIONS = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { name: 'Acme Inc', id: 'acme.localhost' },
  user: { id: 'aGFuZGxl', name: ADA.email, displayName: ADA.name },
  pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
  authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
};
const MADE = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'o2Nm', transports: ['internal'] },
  clientExtensionResults: {},
  authenticatorAttachment: 'platform',
};
const WRONG_PASSWORD = problem(422, 'validation_failed', {
  errors: [{ field: 'current_password', code: 'password_incorrect', message: 'x' }],
});
const RECHECK = problem(422, 'validation_failed', {
  errors: [{ field: 'current_password', code: 'password_recheck_required', message: 'x' }],
});
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();
const LAPTOP: Passkey = {
  id: '0b9e4f4c-7d32-4c4e-9a51-5a1f0c2d3e4f',
  name: 'Work laptop',
  kind: 'iCloud Keychain',
  synced: true,
  createdAt: hoursAgo(72),
  lastUsedAt: hoursAgo(2),
};
const KEY: Passkey = {
  id: '5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  name: 'Security key',
  kind: null,
  synced: false,
  createdAt: hoursAgo(1),
  lastUsedAt: null,
};
const PASSKEY_ONLY = { enabled: true, methods: ['passkey' as const, 'recovery_code' as const], recoveryCodesLeft: 10 };
const FACTOR_RECHECK = problem(422, 'validation_failed', {
  errors: [{ field: 'code', code: 'second_factor_recheck_required', message: 'x' }],
});
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
const dismissed = () =>
  Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' });

beforeEach(() => {
  browser.supported = true;
  browser.startRegistration.mockReset();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the passkeys page', () => {
  it('lists the passkeys: name, kind where known, synced, added and last used', async () => {
    renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, PASSKEY_ONLY),
      'passkeys.list': () => ({ data: { passkeys: [LAPTOP, KEY] } }),
    });
    await screen.findByRole('heading', { level: 1, name: 'Passkeys' });
    const items = await screen.findAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).getByRole('heading', { level: 2 }).textContent).toBe('Work laptopSynced');
    expect(items[0]!.textContent).toContain('iCloud Keychain');
    expect(items[0]!.textContent).toContain('Added 3 days ago · Last used 2 hours ago');
    expect(within(items[1]!).getByRole('heading', { level: 2 }).textContent).toBe('Security key');
    expect(items[1]!.textContent).toContain('Added 1 hour ago · Not used yet');
    expect(items[1]!.querySelector('.badge')).toBeNull();
    expect(within(items[1]!).getByRole('link', { name: 'Rename Security key' })).toBeTruthy();
    expect(within(items[1]!).getByRole('link', { name: 'Remove Security key' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add a passkey' })).toBeTruthy();
    const name = field('Name (optional)');
    expect(name.required).toBe(false);
    expect(name.getAttribute('aria-describedby')).toBe('passkey-name-help');
  });

  it('adds a passkey after the password it asks for again, shows the recovery codes once, then the list', async () => {
    let passkeys: Passkey[] = [];
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, passkeys.length ? PASSKEY_ONLY : TWO_STEP_OFF),
      'passkeys.list': () => ({ data: { passkeys } }),
      'passkeys.registrationOptions': (input) => {
        const password = (input as { current_password?: string }).current_password;
        if (password === undefined) return RECHECK;
        return password === PASSWORD ? { data: OPTIONS } : WRONG_PASSWORD;
      },
      'passkeys.add': (input) => {
        const passkey = { ...KEY, name: (input as { name?: string }).name ?? 'Chrome on Linux' };
        passkeys = [passkey];
        return { data: { passkey, recoveryCodes: CODES } };
      },
    });
    expect(await screen.findByText('You have no passkeys yet.')).toBeTruthy();
    await app.user.type(field('Name (optional)'), 'Work laptop');
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));

    // This session's password is not fresh: the field appears and takes focus, said calmly.
    const password = await screen.findByLabelText<HTMLInputElement>('Current password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    expect(password.getAttribute('aria-describedby')).toBe('passkey-recheck');
    expect(document.getElementById('passkey-recheck')?.textContent).toBe(
      'For your security, enter your current password to add a passkey.',
    );
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(browser.startRegistration).not.toHaveBeenCalled();

    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect([...(await findSummary()).querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      'Current password: Enter your current password.',
    ]);
    await app.user.type(password, 'not it');
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    await waitFor(() =>
      expect(document.getElementById('current_password-error')?.textContent).toBe(message('password_incorrect', 'en')),
    );
    expect(browser.startRegistration).not.toHaveBeenCalled();

    browser.startRegistration.mockResolvedValue(MADE);
    await app.user.clear(password);
    await app.user.type(password, PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));

    const title = await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    await waitFor(() => expect(document.activeElement).toBe(title));
    expect(
      screen.getByText(
        'Your passkey was added, and two-step sign-in is now on: signing in with your password also asks for your passkey.',
      ),
    ).toBeTruthy();
    expect(
      within(screen.getByRole('list', { name: 'Your recovery codes' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(CODES);
    expect(browser.startRegistration).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(app.api.callsTo('passkeys.registrationOptions').map((c) => c.input)).toEqual([
      {},
      { current_password: 'not it' },
      { current_password: PASSWORD },
    ]);
    expect(app.api.callsTo('passkeys.add').map((c) => c.input)).toEqual([{ response: MADE, name: 'Work laptop' }]);

    await app.user.click(screen.getByRole('link', { name: 'Done' }));
    const said = await screen.findByText('Your passkey Work laptop was added.');
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByRole('heading', { level: 2, name: 'Work laptop' });
    expect(screen.queryByText(CODES[0]!)).toBeNull();
    // The form is as new: no password asked (proved a moment ago), the name empty.
    expect(screen.queryByLabelText('Current password')).toBeNull();
    expect(field('Name (optional)').value).toBe('');
  });

  it('says calmly when the prompt was dismissed, and plainly when the device cannot make one', async () => {
    let made = 0;
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, PASSKEY_ONLY),
      'passkeys.list': () => ({ data: { passkeys: made ? [LAPTOP, KEY] : [LAPTOP] } }),
      'passkeys.registrationOptions': () => ({ data: OPTIONS }),
      'passkeys.add': () => {
        made++;
        return { data: { passkey: KEY } };
      },
    });
    browser.startRegistration.mockRejectedValueOnce(dismissed());
    await app.user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const note = await screen.findByText(
      'No passkey was added: the request was cancelled or timed out. Try again when you are ready.',
    );
    expect(note.getAttribute('role')).toBe('status');
    expect(document.querySelector('.error-summary')).toBeNull();

    browser.startRegistration.mockRejectedValueOnce(
      Object.assign(
        new Error(
          'The user attempted to register an authenticator that contains one of the credentials already registered with the relying party.',
        ),
        {
          name: 'InvalidStateError',
        },
      ),
    );
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    const summary = await findSummary();
    expect(summary.textContent).toBe('This device already has a passkey for your account.');
    await waitFor(() => expect(document.activeElement).toBe(summary));
    expect(screen.queryByText(/No passkey was added/)).toBeNull();

    browser.startRegistration.mockResolvedValueOnce(MADE);
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    const said = await screen.findByText('Your passkey Security key was added.');
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByRole('heading', { level: 2, name: 'Security key' });
    expect(app.api.callsTo('passkeys.add').map((c) => c.input)).toEqual([{ response: MADE }]);
  });

  it('puts a refusal of the service in the summary', async () => {
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, TWO_STEP_OFF),
      'passkeys.registrationOptions': () => ({ data: OPTIONS }),
      'passkeys.add': () => problem(422, 'passkey_rejected'),
    });
    browser.startRegistration.mockResolvedValue(MADE);
    await app.user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect((await findSummary()).textContent).toBe(message('passkey_rejected', 'en'));
  });

  it('says so instead of the add button where the browser cannot make passkeys', async () => {
    browser.supported = false;
    renderApp('/settings/passkeys', { 'account.me': () => signedInAs(ADA) }, 'de');
    expect(
      await screen.findByText(
        'Dieser Browser kann keine Passkeys erstellen. Öffnen Sie diese Seite dazu in einem aktuellen Browser wie Chrome, Edge, Firefox oder Safari.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Passkey hinzufügen' })).toBeNull();
    expect(screen.getByRole('heading', { level: 2, name: 'Passkey hinzufügen' })).toBeTruthy();
  });

  it('removes a passkey after the password, warning when it is the last second step', async () => {
    let passkeys = [LAPTOP];
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, passkeys.length ? PASSKEY_ONLY : TWO_STEP_OFF),
      'passkeys.list': () => ({ data: { passkeys } }),
      'passkeys.remove': (input) => {
        const { passkey_id, current_password } = input as { passkey_id: string; current_password: string };
        if (current_password !== PASSWORD) return WRONG_PASSWORD;
        passkeys = passkeys.filter((p) => p.id !== passkey_id);
        return { data: { ok: true } };
      },
    });
    await app.user.click(await screen.findByRole('link', { name: 'Remove Work laptop' }));
    const password = await screen.findByLabelText('Current password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    expect(screen.getByText('Enter your current password to remove Work laptop.')).toBeTruthy();
    expect(
      screen.getByText('It is your only second step: two-step sign-in turns off, and your recovery codes are deleted.'),
    ).toBeTruthy();
    // One form at a time: adding waits.
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).toBeNull();

    // Cancel gives focus back to the button that opened it.
    await app.user.click(screen.getByRole('link', { name: 'Cancel' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Remove Work laptop' })));

    await app.user.click(screen.getByRole('link', { name: 'Remove Work laptop' }));
    await app.user.type(await screen.findByLabelText('Current password'), 'wrong');
    await app.user.click(screen.getByRole('button', { name: 'Remove Work laptop' }));
    await waitFor(() =>
      expect(document.getElementById('current_password-error')?.textContent).toBe(message('password_incorrect', 'en')),
    );
    await app.user.clear(field('Current password'));
    await app.user.type(field('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Remove Work laptop' }));

    const said = await screen.findByText(
      'Work laptop was removed. Two-step sign-in is off, and your recovery codes were deleted.',
    );
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByText('You have no passkeys yet.');
    expect(app.api.callsTo('passkeys.remove').map((c) => c.input)).toEqual([
      { passkey_id: LAPTOP.id, current_password: 'wrong' },
      { passkey_id: LAPTOP.id, current_password: PASSWORD },
    ]);
  });

  it('removing the last passkey asks for a second-step code when the server does; with it the passkey goes', async () => {
    let passkeys = [LAPTOP];
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, passkeys.length ? PASSKEY_ONLY : TWO_STEP_OFF),
      'passkeys.list': () => ({ data: { passkeys } }),
      'passkeys.remove': (input) => {
        if ((input as { code?: string }).code === undefined) return FACTOR_RECHECK;
        passkeys = [];
        return { data: { ok: true } };
      },
    });
    await app.user.click(await screen.findByRole('link', { name: 'Remove Work laptop' }));
    await app.user.type(await screen.findByLabelText('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Remove Work laptop' }));
    const code = await screen.findByLabelText<HTMLInputElement>('Recovery code');
    await waitFor(() => expect(document.activeElement).toBe(code));
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(field('Current password').value).toBe(PASSWORD);
    await app.user.type(code, 'abcde-fghjk');
    await app.user.click(screen.getByRole('button', { name: 'Remove Work laptop' }));
    await screen.findByText('Work laptop was removed. Two-step sign-in is off, and your recovery codes were deleted.');
    expect(app.api.callsTo('passkeys.remove').map((c) => c.input)).toEqual([
      { passkey_id: LAPTOP.id, current_password: PASSWORD },
      { passkey_id: LAPTOP.id, current_password: PASSWORD, code: 'abcde-fghjk' },
    ]);
  });

  it('adding a passkey beside the app asks for the password and a code at once when the server does', async () => {
    const app = renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA, { enabled: true, methods: ['totp', 'recovery_code'], recoveryCodesLeft: 10 }),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
      'passkeys.registrationOptions': (input) => {
        const { current_password, code } = input as { current_password?: string; code?: string };
        if (current_password === undefined && code === undefined)
          return problem(422, 'validation_failed', {
            errors: [
              { field: 'current_password', code: 'password_recheck_required', message: 'x' },
              { field: 'code', code: 'second_factor_recheck_required', message: 'x' },
            ],
          });
        return { data: OPTIONS };
      },
      'passkeys.add': () => ({ data: { passkey: KEY } }),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    const password = await screen.findByLabelText<HTMLInputElement>('Current password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    const code = field('Code from your app, or a recovery code');
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(browser.startRegistration).not.toHaveBeenCalled();
    browser.startRegistration.mockResolvedValue(MADE);
    await app.user.type(password, PASSWORD);
    await app.user.type(code, '123 456');
    await app.user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    await screen.findByText('Your passkey Security key was added.');
    expect(app.api.callsTo('passkeys.registrationOptions').map((c) => c.input)).toEqual([
      {},
      { current_password: PASSWORD, code: '123 456' },
    ]);
    // Proved for a few minutes: the form is as new, asking for neither.
    expect(screen.queryByLabelText('Current password')).toBeNull();
    expect(screen.queryByLabelText('Code from your app, or a recovery code')).toBeNull();
  });

  it('renames a passkey in place, and says when it was gone already', async () => {
    let passkeys = [LAPTOP, KEY];
    const app = renderApp(
      '/settings/passkeys',
      {
        'account.me': () => signedInAs(ADA, { ...PASSKEY_ONLY, methods: ['passkey', 'totp', 'recovery_code'] }),
        'passkeys.list': () => ({ data: { passkeys } }),
        'passkeys.rename': (input) => {
          const { passkey_id, name } = input as { passkey_id: string; name: string };
          if (passkey_id === KEY.id) {
            passkeys = [LAPTOP];
            return problem(404, 'not_found');
          }
          passkeys = passkeys.map((p) => (p.id === passkey_id ? { ...p, name } : p));
          return { data: { ok: true } };
        },
      },
      'fr',
    );
    await app.user.click(await screen.findByRole('link', { name: 'Renommer Work laptop' }));
    const name = await screen.findByLabelText<HTMLInputElement>('Nom de la clé d’accès');
    await waitFor(() => expect(document.activeElement).toBe(name));
    expect(name.value).toBe('Work laptop');
    await app.user.clear(name);
    await app.user.click(screen.getByRole('button', { name: 'Enregistrer le nom' }));
    expect((await findSummary()).textContent).toContain('Saisissez un nom pour la clé d’accès.');
    await app.user.type(name, 'Portable');
    await app.user.click(screen.getByRole('button', { name: 'Enregistrer le nom' }));
    await screen.findByText('La clé d’accès s’appelle maintenant Portable.');
    expect((await screen.findByRole('heading', { level: 2, name: /^Portable/ })).textContent).toBe(
      'PortableSynchronisée',
    );

    await app.user.click(screen.getByRole('link', { name: 'Renommer Security key' }));
    await app.user.type(await screen.findByLabelText('Nom de la clé d’accès'), ' 2');
    await app.user.click(screen.getByRole('button', { name: 'Enregistrer le nom' }));
    await screen.findByText(message('not_found', 'fr'));
    await waitFor(() => expect(screen.queryByRole('heading', { level: 2, name: /Security key/ })).toBeNull());
    expect(app.api.callsTo('passkeys.rename').map((c) => c.input)).toEqual([
      { passkey_id: LAPTOP.id, name: 'Portable' },
      { passkey_id: KEY.id, name: 'Security key 2' },
    ]);
  });

  it('goes to sign-in, and back here after, when the session ended', async () => {
    renderApp('/settings/passkeys', {
      'account.me': () => signedInAs(ADA),
      'passkeys.list': () => UNAUTHENTICATED,
    });
    await screen.findByText('You were signed out. Sign in again to continue.');
    expect(currentPath()).toBe('/login?next=%2Fsettings%2Fpasskeys&expired=1');
  });
});

describe('the way to the passkeys page', () => {
  it('is on the account page with how many there are', async () => {
    const app = renderApp('/account', {
      'account.me': (): Reply<'account.me'> => signedInAs(ADA, PASSKEY_ONLY),
      'passkeys.list': () => ({ data: { passkeys: [LAPTOP, KEY] } }),
    });
    const link = await screen.findByRole('link', { name: 'Passkeys' });
    await waitFor(() => expect(link.closest('li')!.textContent).toBe('Passkeys2 passkeys'));
    await app.user.click(link);
    await screen.findByRole('heading', { level: 1, name: 'Passkeys' });
    expect(currentPath()).toBe('/settings/passkeys');
  });
});

describe('passkey events on the activity page', () => {
  it('names them, marks a failed one, and warns of a counter that went backwards', async () => {
    renderApp(
      '/settings/activity',
      {
        'account.me': () => signedInAs(ADA),
        'security.activity': () => ({
          data: {
            events: [
              ['passkey_added', false],
              ['passkey_renamed', false],
              ['passkey_failed', true],
              ['passkey_counter_regressed', false],
              ['passkey_removed', false],
            ].map(([type, failed], i) => ({
              id: String(i),
              at: new Date().toISOString(),
              type: type as string,
              device: null,
              address: null,
              failed: failed as boolean,
              app: null,
            })),
            nextCursor: null,
          },
        }),
      },
      'de',
    );
    await screen.findByText('Passkey hinzugefügt');
    const events = [...document.querySelectorAll('.event')];
    expect(events.map((e) => e.querySelector('.event-what')!.textContent)).toEqual([
      'Passkey hinzugefügt',
      'Passkey umbenannt',
      'Ein Passkey konnte nicht bestätigt werdenFehlgeschlagen',
      'Der Zähler eines Passkeys ist zurückgegangen: Er wurde möglicherweise kopiertWarnung',
      'Passkey entfernt',
    ]);
    expect(events.map((e) => e.classList.contains('failed'))).toEqual([false, false, true, true, false]);
  });
});
