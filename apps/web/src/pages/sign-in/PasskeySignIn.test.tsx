import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ADA, deferred, problem, signedInAs, UNAUTHENTICATED, type Reply } from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

// Signing in with a passkey, alone or as the second step. The browser's side of WebAuthn is
// @simplewebauthn/browser's: here a stand-in whose prompts each test answers.
const browser = vi.hoisted(() => ({
  supported: true,
  autofill: false,
  startAuthentication: vi.fn(),
  cancelCeremony: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => ({
  browserSupportsWebAuthn: () => browser.supported,
  browserSupportsWebAuthnAutofill: () => Promise.resolve(browser.autofill),
  startRegistration: vi.fn(),
  startAuthentication: browser.startAuthentication,
  WebAuthnAbortService: { cancelCeremony: browser.cancelCeremony },
}));

const PASSWORD = 'violet tractor sings at midnight';
const OPTIONS = { challenge: 'Y2hhbGxlbmdl', rpId: 'acme.localhost', userVerification: 'required', timeout: 300000 };
const STEP_OPTIONS = {
  ...OPTIONS,
  userVerification: 'preferred',
  allowCredentials: [{ id: 'Y3JlZA', type: 'public-key' }],
};
const ASSERTION = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'YXV0aA', signature: 'c2ln', userHandle: 'aGFuZGxl' },
  clientExtensionResults: {},
  authenticatorAttachment: 'platform',
};
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
const named = (name: string, text = name) => Object.assign(new Error(text), { name });

beforeEach(() => {
  browser.supported = true;
  browser.autofill = false;
  browser.startAuthentication.mockReset();
  browser.cancelCeremony.mockReset();
});

/** A sign-in page whose passkey sign-in answers with ADA, and whose account.me follows it. */
function signInPage(path = '/login', handlers: Parameters<typeof renderApp>[1] = {}, locale?: 'en' | 'de' | 'fr') {
  let signedIn = false;
  return renderApp(
    path,
    {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'passkeys.signInOptions': () => ({ data: OPTIONS }),
      'passkeys.signIn': () => {
        signedIn = true;
        return { data: { user: ADA } };
      },
      'security.sessions': () => ({ data: { sessions: [] } }),
      ...handlers,
    },
    locale,
  );
}

describe('sign-in page, with a passkey', () => {
  it('signs in with the button, no email typed, and goes where a sign-in goes', async () => {
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    const app = signInPage('/login?next=%2Fsettings%2Fsessions');
    await app.user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await screen.findByRole('heading', { level: 1, name: "Where you're signed in" });
    expect(currentPath()).toBe('/settings/sessions');
    expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(app.api.callsTo('passkeys.signIn').map((c) => c.input)).toEqual([{ response: ASSERTION }]);
    expect(app.api.callsTo('account.signIn')).toHaveLength(0);
  });

  it('says while it waits, and calmly when the prompt was dismissed', async () => {
    const answer = deferred<never>();
    browser.startAuthentication.mockReturnValue(answer.promise);
    const app = signInPage();
    await app.user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    const waiting = await screen.findByRole('button', { name: 'Waiting for your passkey…' });
    expect(waiting.hasAttribute('disabled')).toBe(true);

    answer.resolve(Promise.reject(named('NotAllowedError')) as never);
    const note = await screen.findByText(
      'No passkey was used: the request was cancelled or timed out. Try again when you are ready.',
    );
    expect(note.getAttribute('role')).toBe('status');
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign in with a passkey' }).hasAttribute('disabled')).toBe(false);
    expect(app.api.callsTo('passkeys.signIn')).toHaveLength(0);
    expect(currentPath()).toBe('/login');
  });

  it("puts the service's refusal in the form's summary, and the device's failure in words", async () => {
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    const app = signInPage('/login', { 'passkeys.signIn': () => problem(422, 'passkey_rejected') }, 'de');
    await app.user.click(await screen.findByRole('button', { name: 'Mit einem Passkey anmelden' }));
    const summary = await findSummary();
    expect(summary.textContent).toBe(message('passkey_rejected', 'de'));
    await waitFor(() => expect(document.activeElement).toBe(summary));

    browser.startAuthentication.mockRejectedValue(named('SecurityError', 'The relying party ID is not valid'));
    await app.user.click(screen.getByRole('button', { name: 'Mit einem Passkey anmelden' }));
    await waitFor(() =>
      expect(document.querySelector('.error-summary')?.textContent).toBe(
        'Ihr Browser oder Gerät konnte hier keinen Passkey verwenden. Versuchen Sie es erneut oder wählen Sie einen anderen Weg.',
      ),
    );
    expect(app.api.callsTo('passkeys.signIn')).toHaveLength(1);
  });

  it('says where the browser cannot use passkeys', async () => {
    browser.supported = false;
    const app = signInPage();
    await app.user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await screen.findByText('This browser cannot use passkeys. Sign in with your email address and password instead.');
    expect(app.api.callsTo('passkeys.signInOptions')).toHaveLength(0);
  });

  it("offers passkeys in the address field's autofill once, and signs in with the one chosen there", async () => {
    browser.autofill = true;
    const chosen = deferred<typeof ASSERTION>();
    browser.startAuthentication.mockReturnValue(chosen.promise);
    const app = signInPage('/login?next=%2Fsettings%2Fsessions');
    const email = await screen.findByLabelText('Email address');
    expect(email.getAttribute('autocomplete')).toBe('username webauthn');
    await waitFor(() =>
      expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: OPTIONS, useBrowserAutofill: true }),
    );
    expect(app.api.callsTo('passkeys.signInOptions')).toHaveLength(1);

    chosen.resolve(ASSERTION);
    await screen.findByRole('heading', { level: 1, name: "Where you're signed in" });
    expect(app.api.callsTo('passkeys.signIn').map((c) => c.input)).toEqual([{ response: ASSERTION }]);
    expect(browser.startAuthentication).toHaveBeenCalledTimes(1);
  });

  it('keeps quiet when the autofill ends without a passkey, and ends it when the page goes', async () => {
    browser.autofill = true;
    const pending = deferred<never>();
    browser.startAuthentication.mockReturnValueOnce(pending.promise).mockResolvedValueOnce(ASSERTION);
    const app = signInPage();
    await waitFor(() => expect(browser.startAuthentication).toHaveBeenCalledTimes(1));
    // The button's prompt replaces the autofill's, which then ends (aborted): nothing said of that.
    await app.user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    pending.resolve(Promise.reject(named('AbortError')) as never);
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(browser.startAuthentication.mock.calls[1]).toEqual([{ optionsJSON: OPTIONS }]);
    expect(app.api.callsTo('passkeys.signIn')).toHaveLength(1);
    // The sign-in page is gone: whatever prompt it had open is ended.
    await waitFor(() => expect(browser.cancelCeremony).toHaveBeenCalled());
  });

  it('says the failure of a passkey chosen in the autofill', async () => {
    browser.autofill = true;
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    signInPage('/login', { 'passkeys.signIn': () => problem(400, 'passkey_challenge_invalid') });
    expect((await findSummary()).textContent).toBe(message('passkey_challenge_invalid', 'en'));
  });

  it('does not start the autofill where the browser does not offer it', async () => {
    const app = signInPage();
    await screen.findByRole('button', { name: 'Sign in with a passkey' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(app.api.callsTo('passkeys.signInOptions')).toHaveLength(0);
    expect(browser.startAuthentication).not.toHaveBeenCalled();
  });
});

describe('sign-in page, second step with a passkey', () => {
  async function passwordStep(app: ReturnType<typeof renderApp>) {
    await app.user.type(await screen.findByLabelText('Email address'), ADA.email);
    await app.user.type(field('Password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
  }

  it('offers the passkey first, with the codes still there, and signs in with it', async () => {
    browser.startAuthentication.mockRejectedValueOnce(named('NotAllowedError')).mockResolvedValueOnce(ASSERTION);
    let signedIn = false;
    const app = renderApp('/login?next=%2Fsettings%2Fsessions', {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'account.signIn': () => problem(401, 'second_factor_required', { methods: ['passkey', 'totp', 'recovery_code'] }),
      'passkeys.secondStepOptions': () => ({ data: STEP_OPTIONS }),
      'passkeys.secondStep': () => {
        signedIn = true;
        return { data: { user: ADA } };
      },
      'security.sessions': () => ({ data: { sessions: [] } }),
    });
    await passwordStep(app);

    const use = await screen.findByRole('button', { name: 'Use your passkey' });
    await waitFor(() => expect(document.activeElement).toBe(use));
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Confirm it is you with your passkey',
      'Enter the 6-digit code from your authenticator app',
    ]);
    expect(field('6-digit code')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Use a recovery code instead' })).toBeTruthy();

    await app.user.click(use);
    await screen.findByText(
      'No passkey was used: the request was cancelled or timed out. Try again when you are ready.',
    );
    expect(app.api.callsTo('passkeys.secondStep')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Use your passkey' }));
    await screen.findByRole('heading', { level: 1, name: "Where you're signed in" });
    expect(browser.startAuthentication).toHaveBeenLastCalledWith({ optionsJSON: STEP_OPTIONS });
    expect(app.api.callsTo('passkeys.secondStepOptions').map((c) => c.input)).toEqual([{}, {}]);
    expect(app.api.callsTo('passkeys.secondStep').map((c) => c.input)).toEqual([{ response: ASSERTION }]);
    expect(app.api.callsTo('account.signInSecondStep')).toHaveLength(0);
  });

  it('asks for a recovery code when the account has no app, and goes back to the password when the step expired', async () => {
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    const app = renderApp('/login', {
      'account.signIn': () => problem(401, 'second_factor_required', { methods: ['passkey', 'recovery_code'] }),
      'passkeys.secondStepOptions': () => ({ data: STEP_OPTIONS }),
      'passkeys.secondStep': () => problem(401, 'sign_in_expired'),
    });
    await passwordStep(app);
    await screen.findByRole('button', { name: 'Use your passkey' });
    const code = field('Recovery code');
    expect(code.hasAttribute('inputmode')).toBe(false);
    expect(screen.queryByRole('button', { name: /authenticator app instead/ })).toBeNull();

    await app.user.click(screen.getByRole('button', { name: 'Use your passkey' }));
    const why = await screen.findByText(message('sign_in_expired', 'en'));
    await waitFor(() => expect(document.activeElement).toBe(why.closest('.notice')));
    expect(field('Email address').value).toBe(ADA.email);
    expect(screen.queryByRole('button', { name: 'Use your passkey' })).toBeNull();
  });

  it("puts a refused passkey in the code form's summary; a code still signs in", async () => {
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    const app = renderApp('/login', {
      'account.signIn': () => problem(401, 'second_factor_required', { methods: ['passkey', 'totp', 'recovery_code'] }),
      'passkeys.secondStepOptions': () => ({ data: STEP_OPTIONS }),
      'passkeys.secondStep': () => problem(422, 'passkey_rejected'),
      'account.signInSecondStep': () => ({ data: { user: ADA } }),
    });
    await passwordStep(app);
    await app.user.click(await screen.findByRole('button', { name: 'Use your passkey' }));
    const summary = await findSummary();
    expect(summary.textContent).toBe(message('passkey_rejected', 'en'));
    await waitFor(() => expect(document.activeElement).toBe(summary));
    await app.user.type(field('6-digit code'), '123456');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(document.querySelectorAll('.error-summary')).toHaveLength(0);
  });
});
