import { message } from '@accounts/validators';
import { render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TwoStepLink } from '../../components/TwoStepLink';
import { Providers } from '../../Providers';
import type { TwoStepStatus } from '../../session';
import {
  ACME_SETTINGS,
  ADA,
  fakeApi,
  problem,
  signedInAs,
  TWO_STEP_OFF,
  TWO_STEP_ON,
  UNAUTHENTICATED,
  type Reply,
} from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

const PASSWORD = 'violet tractor sings at midnight';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const SETUP = {
  secret: SECRET,
  uri: `otpauth://totp/Example%20ID:ada%40example.com?secret=${SECRET}&issuer=Example%20ID`,
  qrCode: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
};
const CODES = Array.from({ length: 10 }, (_, i) => `abcd${i}-fghj${i}`);
const NEW_CODES = Array.from({ length: 10 }, (_, i) => `mnpq${i}-rstv${i}`);
const WRONG_PASSWORD = problem(422, 'validation_failed', {
  errors: [{ field: 'current_password', code: 'password_incorrect', message: 'x' }],
});
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
/** The server asks for a second factor on `field` (the session proved none in the last five minutes). */
const factorRecheck = (field = 'code') =>
  problem(422, 'validation_failed', {
    errors: [{ field, code: 'second_factor_recheck_required', message: 'x' }],
  });
const ASSERTION = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'c2ln' },
  clientExtensionResults: {},
};

// The browser's side of WebAuthn (a passkey confirmed in place) is @simplewebauthn/browser's: a stand-in here.
const browser = vi.hoisted(() => ({ startAuthentication: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => ({
  browserSupportsWebAuthn: () => true,
  browserSupportsWebAuthnAutofill: () => Promise.resolve(false),
  startAuthentication: browser.startAuthentication,
  WebAuthnAbortService: { cancelCeremony: vi.fn() },
}));

/** The file the Download button hands the browser: its name and text. */
function catchDownloads() {
  const files: { name: string; blob: Blob }[] = [];
  let last: Blob | null = null;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    last = blob as Blob;
    return 'blob:fake';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (this.href === 'blob:fake' && last) files.push({ name: this.download, blob: last });
  });
  return files;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('two-step sign-in page', () => {
  it('when off: explains it, sets up an app with a QR code and a key, turns on, and shows the ten codes once', async () => {
    let on = false;
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, on ? TWO_STEP_ON : TWO_STEP_OFF),
      'twoStep.setupTotp': () => ({ data: SETUP }),
      'twoStep.enableTotp': (input) => {
        const { code, current_password } = input as { code: string; current_password: string };
        if (current_password !== PASSWORD) return WRONG_PASSWORD;
        if (code !== '123456')
          return problem(422, 'validation_failed', {
            errors: [{ field: 'code', code: 'code_incorrect', message: 'x' }],
          });
        on = true;
        return { data: { recoveryCodes: CODES } };
      },
    });
    const downloads = catchDownloads();
    expect(await screen.findByText('Two-step sign-in is off.')).toBeTruthy();
    expect(screen.getByText(/someone who learns your password still cannot sign in/i)).toBeTruthy();
    expect(app.api.callsTo('twoStep.setupTotp')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Set up' }));
    const scan = await screen.findByRole('heading', {
      level: 2,
      name: '1. Add this account to your authenticator app',
    });
    await waitFor(() => expect(document.activeElement).toBe(scan));
    const qr = screen.getByRole<HTMLImageElement>('img', {
      name: 'QR code that adds this account to an authenticator app',
    });
    expect(qr.getAttribute('src')).toBe(SETUP.qrCode);
    expect(screen.getByRole('link', { name: /Open the set-up in your authenticator app/ }).getAttribute('href')).toBe(
      SETUP.uri,
    );
    // The key for typing by hand, in groups of four; copied whole.
    expect(document.querySelector('.totp-key code')?.textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    await app.user.click(screen.getByRole('button', { name: 'Copy key' }));
    await screen.findByText('Copied.');
    expect(await navigator.clipboard.readText()).toBe(SECRET);

    const code = field('6-digit code');
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(code.getAttribute('inputmode')).toBe('numeric');
    expect(field('Current password').autocomplete).toBe('current-password');
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    expect([...(await findSummary()).querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      '6-digit code: Enter the 6-digit code from your authenticator app.',
      'Current password: Enter your current password.',
    ]);
    await app.user.type(code, '12345');
    await app.user.type(field('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() =>
      expect(document.getElementById('code-error')?.textContent).toBe(message('totp_code_format', 'en')),
    );
    expect(app.api.callsTo('twoStep.enableTotp')).toHaveLength(0);
    await app.user.type(code, '7');
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() =>
      expect(document.getElementById('code-error')?.textContent).toBe(message('code_incorrect', 'en')),
    );
    await app.user.clear(code);
    await app.user.type(code, '123456');
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));

    // The codes, this once: nothing else of the page until Done.
    const title = await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    await waitFor(() => expect(document.activeElement).toBe(title));
    expect(screen.getByText('Two-step sign-in is now on.')).toBeTruthy();
    expect(screen.getByText(/These codes are shown only this once/)).toBeTruthy();
    const list = screen.getByRole('list', { name: 'Your recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(CODES);
    expect(screen.queryByLabelText('Current password')).toBeNull();
    expect(app.api.callsTo('twoStep.enableTotp').at(-1)!.input).toEqual({ code: '123456', current_password: PASSWORD });

    await app.user.click(screen.getByRole('button', { name: 'Copy codes' }));
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe(CODES.join('\n')));
    await app.user.click(screen.getByRole('button', { name: 'Download as a text file' }));
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.name).toBe('recovery-codes.txt');
    expect(downloads[0]!.blob.type).toBe('text/plain;charset=utf-8');
    const text = await downloads[0]!.blob.text();
    expect(text).toContain(`Recovery codes for ${ADA.email} (Example ID).`);
    for (const c of CODES) expect(text).toContain(`\n${c}\n`);

    await app.user.click(screen.getByRole('link', { name: 'Done' }));
    const state = await screen.findByText('Two-step sign-in is on.');
    await waitFor(() => expect(document.activeElement).toBe(state.closest('p')));
    expect(state.closest('p')!.textContent).toContain('Unused recovery codes: 10');
    expect(screen.queryByText(CODES[0]!)).toBeNull();
  });

  it('when on: turns off after the password and a code, and says so', async () => {
    let on = true;
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, on ? { ...TWO_STEP_ON, recoveryCodesLeft: 2 } : TWO_STEP_OFF),
      'twoStep.disableTotp': (input) => {
        if ((input as { current_password: string }).current_password !== PASSWORD) return WRONG_PASSWORD;
        on = false;
        return { data: { ok: true } };
      },
    });
    const state = await screen.findByText('Two-step sign-in is on.');
    expect(state.closest('p')!.textContent).toContain('Unused recovery codes: 2');
    expect(screen.getByText('You are running out of recovery codes: make new ones.')).toBeTruthy();
    // One form at a time, each behind its button.
    expect(screen.queryByLabelText('Current password')).toBeNull();

    await app.user.click(screen.getByRole('link', { name: 'Turn off' }));
    const password = await screen.findByLabelText('Current password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    const code = field('Code from your app, or a recovery code');
    expect(code.name).toBe('code');
    expect(code.hasAttribute('inputmode')).toBe(false);
    // Turning it off is danger: its own look, in its own block, beside Cancel.
    expect(screen.getByRole('button', { name: 'Turn off' }).className).toBe('primary danger');
    expect(password.closest('form')!.className).toBe('danger-zone');
    await app.user.click(screen.getByRole('button', { name: 'Turn off' }));
    expect([...(await findSummary()).querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      'Current password: Enter your current password.',
      'Code from your app, or a recovery code: Enter a code from your authenticator app, or a recovery code.',
    ]);
    await app.user.type(password, 'a wrong one');
    await app.user.type(code, 'abcde-fghjk');
    await app.user.click(screen.getByRole('button', { name: 'Turn off' }));
    await waitFor(() =>
      expect(document.getElementById('current_password-error')?.textContent).toBe(message('password_incorrect', 'en')),
    );
    await app.user.clear(password);
    await app.user.type(password, PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Turn off' }));

    const said = await screen.findByText('Two-step sign-in is off. Your recovery codes were deleted.');
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByText('Two-step sign-in is off.');
    expect(screen.getByRole('button', { name: 'Set up' })).toBeTruthy();
    expect(app.api.callsTo('twoStep.disableTotp').map((c) => c.input)).toEqual([
      { current_password: 'a wrong one', code: 'abcde-fghjk' },
      { current_password: PASSWORD, code: 'abcde-fghjk' },
    ]);
  });

  it('when on: makes new recovery codes after the password, shows them once, and cancels back to its button', async () => {
    let left = 4;
    const app = renderApp(
      '/settings/two-step',
      {
        'account.me': () => signedInAs(ADA, { ...TWO_STEP_ON, recoveryCodesLeft: left }),
        'twoStep.regenerateRecoveryCodes': () => {
          left = 10;
          return { data: { recoveryCodes: NEW_CODES } };
        },
      },
      'fr',
    );
    await screen.findByText('La connexion en deux étapes est activée.');
    expect(screen.queryByText(/Il vous reste peu de codes/)).toBeNull();

    await app.user.click(screen.getByRole('link', { name: 'Créer de nouveaux codes' }));
    await waitFor(() => expect(document.activeElement).toBe(field('Mot de passe actuel')));
    await app.user.click(screen.getByRole('link', { name: 'Annuler' }));
    expect(screen.queryByLabelText('Mot de passe actuel')).toBeNull();
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Créer de nouveaux codes' })),
    );
    expect(app.api.callsTo('twoStep.regenerateRecoveryCodes')).toHaveLength(0);

    await app.user.click(screen.getByRole('link', { name: 'Créer de nouveaux codes' }));
    await app.user.type(field('Mot de passe actuel'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Créer de nouveaux codes' }));
    await screen.findByRole('heading', { level: 2, name: 'Enregistrez vos codes de récupération' });
    expect(
      screen.getByText('Voici vos nouveaux codes de récupération. Les anciens ne fonctionnent plus.'),
    ).toBeTruthy();
    expect(
      within(screen.getByRole('list', { name: 'Vos codes de récupération' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(NEW_CODES);
    expect(app.api.callsTo('twoStep.regenerateRecoveryCodes')[0]!.input).toEqual({ current_password: PASSWORD });

    await app.user.click(screen.getByRole('link', { name: 'Terminé' }));
    await waitFor(() =>
      expect(document.getElementById('two-step-state')?.textContent).toContain(
        'Codes de récupération inutilisés\u00a0: 10',
      ),
    );
    expect(screen.queryByText(NEW_CODES[0]!)).toBeNull();
  });

  it('when on: asks for a code for new codes when the server does, keeping the password typed; with it they come', async () => {
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, TWO_STEP_ON),
      'twoStep.regenerateRecoveryCodes': (input) => {
        const { code } = input as { code?: string };
        if (code === undefined) return factorRecheck();
        if (code !== '123456')
          return problem(422, 'validation_failed', {
            errors: [{ field: 'code', code: 'code_incorrect', message: 'x' }],
          });
        return { data: { recoveryCodes: NEW_CODES } };
      },
    });
    await app.user.click(await screen.findByRole('link', { name: 'Make new codes' }));
    await app.user.type(await screen.findByLabelText('Current password'), PASSWORD);
    expect(screen.queryByLabelText('Code from your app, or a recovery code')).toBeNull();
    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));

    // Asked, not refused: the code field appears and takes focus, said calmly; the password stays.
    const code = await screen.findByLabelText<HTMLInputElement>('Code from your app, or a recovery code');
    await waitFor(() => expect(document.activeElement).toBe(code));
    expect(code.name).toBe('code');
    expect(code.getAttribute('aria-describedby')).toBe('code-recheck');
    expect(document.getElementById('code-recheck')?.textContent).toBe(
      'For your security, confirm it is you with your second step: enter a code.',
    );
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(field('Current password').value).toBe(PASSWORD);
    // No passkey on this account: none offered.
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).toBeNull();

    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));
    expect([...(await findSummary()).querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      'Code from your app, or a recovery code: Enter a code from your authenticator app, or a recovery code.',
    ]);
    await app.user.type(code, '654321');
    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));
    await waitFor(() =>
      expect(document.getElementById('code-error')?.textContent).toBe(message('code_incorrect', 'en')),
    );
    await app.user.clear(code);
    await app.user.type(code, '123456');
    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));
    await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    expect(app.api.callsTo('twoStep.regenerateRecoveryCodes').map((c) => c.input)).toEqual([
      { current_password: PASSWORD },
      { current_password: PASSWORD, code: '654321' },
      { current_password: PASSWORD, code: '123456' },
    ]);
  });

  it('when on with passkeys: a passkey confirmed in place answers the ask, and the form goes without a code', async () => {
    let confirmed = false;
    const app = renderApp('/settings/two-step', {
      'account.me': () =>
        signedInAs(ADA, { enabled: true, methods: ['passkey', 'recovery_code'], recoveryCodesLeft: 3 }),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
      'passkeys.recheckOptions': () => ({ data: { challenge: 'Y2hhbGxlbmdl', allowCredentials: [] } }),
      'passkeys.recheck': () => {
        confirmed = true;
        return { data: { ok: true } };
      },
      'twoStep.regenerateRecoveryCodes': () => (confirmed ? { data: { recoveryCodes: NEW_CODES } } : factorRecheck()),
    });
    await app.user.click(await screen.findByRole('link', { name: 'Make new codes' }));
    await app.user.type(await screen.findByLabelText('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));
    // Without the app, the code is a recovery code; or a passkey.
    await screen.findByLabelText('Recovery code');
    expect(document.getElementById('code-recheck')?.textContent).toBe(
      'For your security, confirm it is you with your second step: use a passkey, or enter a code.',
    );

    // A dismissed prompt is a calm note; then the passkey.
    browser.startAuthentication.mockRejectedValueOnce(
      Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' }),
    );
    await app.user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    await screen.findByText(
      'No passkey was used: the request was cancelled or timed out. Try again when you are ready.',
    );
    expect(app.api.callsTo('passkeys.recheck')).toHaveLength(0);
    browser.startAuthentication.mockResolvedValueOnce(ASSERTION);
    await app.user.click(screen.getByRole('button', { name: 'Use a passkey' }));
    await screen.findByText('Confirmed with your passkey. You can go on.');
    expect(screen.queryByLabelText('Recovery code')).toBeNull();
    expect(app.api.callsTo('passkeys.recheck').map((c) => c.input)).toEqual([{ response: ASSERTION }]);

    await app.user.click(screen.getByRole('button', { name: 'Make new codes' }));
    await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    expect(app.api.callsTo('twoStep.regenerateRecoveryCodes').map((c) => c.input)).toEqual([
      { current_password: PASSWORD },
      { current_password: PASSWORD },
    ]);
  });

  it('with passkeys only: turning the app on asks for a recovery code when the server does, keeping what was typed', async () => {
    const app = renderApp('/settings/two-step', {
      'account.me': () =>
        signedInAs(ADA, { enabled: true, methods: ['passkey', 'recovery_code'], recoveryCodesLeft: 10 }),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
      'twoStep.setupTotp': () => ({ data: SETUP }),
      'twoStep.enableTotp': (input) =>
        (input as { recovery_code?: string }).recovery_code === undefined
          ? factorRecheck('recovery_code')
          : { data: { recoveryCodes: NEW_CODES } },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Set up' }));
    await app.user.type(await screen.findByLabelText('6-digit code'), '123456');
    await app.user.type(field('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    const recovery = await screen.findByLabelText<HTMLInputElement>('Recovery code');
    await waitFor(() => expect(document.activeElement).toBe(recovery));
    expect(recovery.name).toBe('recovery_code');
    expect(field('6-digit code').value).toBe('123456');
    expect(document.querySelector('.error-summary')).toBeNull();
    await app.user.type(recovery, 'abcde-fghjk');
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    expect(app.api.callsTo('twoStep.enableTotp').map((c) => c.input)).toEqual([
      { code: '123456', current_password: PASSWORD },
      { code: '123456', current_password: PASSWORD, recovery_code: 'abcde-fghjk' },
    ]);
  });

  it('shows the state as the server has it when it was changed elsewhere', async () => {
    let on = false;
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, on ? TWO_STEP_ON : TWO_STEP_OFF),
      'twoStep.setupTotp': () => {
        on = true;
        return problem(409, 'two_step_on');
      },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Set up' }));
    const said = await screen.findByText(message('two_step_on', 'en'));
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByText('Two-step sign-in is on.');
    expect(screen.queryByRole('button', { name: 'Set up' })).toBeNull();
  });

  it('with passkeys only: on through them, the app off and set up beside them, with new codes', async () => {
    let methods: TwoStepStatus['methods'] = ['passkey', 'recovery_code'];
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, { enabled: true, methods, recoveryCodesLeft: 10 }),
      'passkeys.list': () => ({ data: { passkeys: [] } }),
      'twoStep.setupTotp': () => ({ data: SETUP }),
      'twoStep.enableTotp': () => {
        methods = ['passkey', 'totp', 'recovery_code'];
        return { data: { recoveryCodes: NEW_CODES } };
      },
    });
    const state = await screen.findByText('Two-step sign-in is on through your passkeys.');
    expect(state.closest('p')!.textContent).toContain('Unused recovery codes: 10');
    expect(screen.getByRole('heading', { level: 2, name: 'Authenticator app' })).toBeTruthy();
    expect(screen.getByText(/The authenticator app is off\./)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Turn off' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Passkeys' }).getAttribute('href')).toBe('/settings/passkeys');

    await app.user.click(screen.getByRole('button', { name: 'Set up' }));
    await screen.findByRole('heading', { level: 2, name: '1. Add this account to your authenticator app' });
    await app.user.type(field('6-digit code'), '123456');
    await app.user.type(field('Current password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Turn on' }));
    await screen.findByRole('heading', { level: 2, name: 'Save your recovery codes' });
    expect(
      screen.getByText(
        'The authenticator app is on. These new recovery codes replace the ones you had: the old ones no longer work.',
      ),
    ).toBeTruthy();
    await app.user.click(screen.getByRole('link', { name: 'Done' }));
    await screen.findByText('Two-step sign-in is on.');
    expect(screen.getByRole('heading', { level: 2, name: 'Turn off the authenticator app' })).toBeTruthy();
  });

  it('with passkeys too: turning the app off leaves two-step sign-in on, and says so', async () => {
    let methods: TwoStepStatus['methods'] = ['passkey', 'totp', 'recovery_code'];
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, { enabled: true, methods, recoveryCodesLeft: 9 }),
      'twoStep.disableTotp': () => {
        methods = ['passkey', 'recovery_code'];
        return { data: { ok: true } };
      },
    });
    await screen.findByText('Two-step sign-in is on.');
    expect(screen.getByText(/your recovery codes stay/)).toBeTruthy();
    await app.user.click(screen.getByRole('link', { name: 'Turn off' }));
    await app.user.type(await screen.findByLabelText('Current password'), PASSWORD);
    await app.user.type(field('Code from your app, or a recovery code'), '123456');
    await app.user.click(screen.getByRole('button', { name: 'Turn off' }));
    const said = await screen.findByText(
      'The authenticator app is off. Two-step sign-in stays on through your passkeys.',
    );
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByText('Two-step sign-in is on through your passkeys.');
    expect(screen.getByRole('button', { name: 'Set up' })).toBeTruthy();
  });

  it('shows the app as off when it was turned off elsewhere (totp_off)', async () => {
    let methods: TwoStepStatus['methods'] = ['passkey', 'totp', 'recovery_code'];
    const app = renderApp('/settings/two-step', {
      'account.me': () => signedInAs(ADA, { enabled: true, methods, recoveryCodesLeft: 10 }),
      'twoStep.disableTotp': () => {
        methods = ['passkey', 'recovery_code'];
        return problem(409, 'totp_off');
      },
    });
    await app.user.click(await screen.findByRole('link', { name: 'Turn off' }));
    await app.user.type(await screen.findByLabelText('Current password'), PASSWORD);
    await app.user.type(field('Code from your app, or a recovery code'), '123456');
    await app.user.click(screen.getByRole('button', { name: 'Turn off' }));
    const said = await screen.findByText(message('totp_off', 'en'));
    await waitFor(() => expect(document.activeElement).toBe(said.closest('[role=status]')));
    await screen.findByText('Two-step sign-in is on through your passkeys.');
  });

  it('goes to sign-in, and back here after, when the session ended', async () => {
    let sessionAlive = true;
    const app = renderApp('/settings/two-step', {
      'account.me': () => (sessionAlive ? signedInAs(ADA) : UNAUTHENTICATED),
      'twoStep.setupTotp': () => {
        sessionAlive = false;
        return UNAUTHENTICATED;
      },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Set up' }));
    await screen.findByText('You were signed out. Sign in again to continue.');
    expect(currentPath()).toBe('/login?next=%2Fsettings%2Ftwo-step&expired=1');
  });
});

describe('the way to the two-step sign-in page', () => {
  it('is on the account and password pages, saying whether it is on', async () => {
    const app = renderApp('/account', { 'account.me': () => signedInAs(ADA, TWO_STEP_ON) });
    const link = await screen.findByRole('link', { name: 'Two-step sign-in' });
    // The hub's row: what it is, and its state in words (what it asks for, the codes left).
    await waitFor(() =>
      expect(link.closest('li')!.textContent).toBe(
        'Two-step sign-inOn: with an authenticator app; 10 recovery codes left',
      ),
    );
    await app.user.click(link);
    await screen.findByRole('heading', { level: 1, name: 'Two-step sign-in' });
    expect(currentPath()).toBe('/settings/two-step');
    app.unmount();

    renderApp('/settings', { 'account.me': () => signedInAs(ADA, TWO_STEP_OFF) }, 'de');
    const off = await screen.findByRole('link', { name: 'Anmeldung in zwei Schritten' });
    await waitFor(() => expect(off.parentElement!.textContent).toBe('Anmeldung in zwei Schritten Aus'));
  });

  it('asks for the state once when the page came without it, and shows nothing until it is known', async () => {
    const api = fakeApi({ 'account.me': (): Reply<'account.me'> => signedInAs(ADA, TWO_STEP_ON) });
    render(
      <Providers locale="en" data={{ locale: 'en', settings: ACME_SETTINGS, user: ADA }} fetchImpl={api.fetch}>
        <p>
          <TwoStepLink />
        </p>
        <p>
          <TwoStepLink />
        </p>
      </Providers>,
    );
    expect(screen.getAllByRole('link', { name: 'Two-step sign-in' })).toHaveLength(2);
    expect(document.querySelector('.badge')).toBeNull();
    await waitFor(() => expect(document.querySelectorAll('.badge')).toHaveLength(2));
    expect(api.callsTo('account.me')).toHaveLength(1);
  });

  it('sends nothing when the page came with it', async () => {
    const api = fakeApi();
    render(
      <Providers
        locale="en"
        data={{ locale: 'en', settings: ACME_SETTINGS, user: ADA, twoStep: TWO_STEP_OFF }}
        fetchImpl={api.fetch}
      >
        <TwoStepLink />
      </Providers>,
    );
    expect(document.querySelector('.badge')?.textContent).toBe('Off');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.callsTo('account.me')).toHaveLength(0);
  });
});

describe('two-step events on the activity page', () => {
  it('names them, and marks a wrong code as a failure', async () => {
    renderApp('/settings/activity', {
      'account.me': () => signedInAs(ADA),
      'security.activity': () => ({
        data: {
          events: [
            ['recovery_code_used', false],
            ['second_factor_failed', true],
            ['sign_in_second_step', false],
            ['two_step_enabled', false],
            ['two_step_reset', false],
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
    });
    const failed = await screen.findByText('Wrong two-step sign-in code entered');
    expect(failed.closest('li')!.className).toContain('failed');
    expect([...document.querySelectorAll('.event-what strong')].map((e) => e.textContent)).toEqual([
      'Recovery code used',
      'Wrong two-step sign-in code entered',
      // No internal state: a password step that led to no sign-in says so in plain words.
      'Right password entered, but the sign-in was not finished with the second step',
      'Two-step sign-in turned on',
      'Two-step sign-in reset by an administrator',
    ]);
  });
});
