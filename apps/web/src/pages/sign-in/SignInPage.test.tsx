import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, signedInAs, UNAUTHENTICATED, type Reply } from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

const PASSWORD = 'violet tractor sings at midnight';
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

async function signIn(app: ReturnType<typeof renderApp>) {
  await app.user.type(await screen.findByLabelText('Email address'), ADA.email);
  await app.user.type(field('Password'), PASSWORD);
  await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in page', () => {
  it('uses username (with passkeys offered there) and current-password autocomplete, and marks both fields required', async () => {
    renderApp('/login');
    expect((await screen.findByLabelText('Email address')).getAttribute('autocomplete')).toBe('username webauthn');
    expect(field('Email address').required).toBe(true);
    expect(field('Password').required).toBe(true);
    expect(field('Password').autocomplete).toBe('current-password');
  });

  it('says wrong credentials about the form as a whole, not about the password field', async () => {
    const app = renderApp('/login', {
      'account.signIn': () =>
        problem(422, 'validation_failed', {
          errors: [{ field: 'password', code: 'credentials_invalid', message: 'x' }],
        }),
    });
    await signIn(app);
    const summary = await findSummary();
    expect(summary.querySelector('h2')?.textContent).toBe(message('credentials_invalid', 'en'));
    expect(summary.querySelectorAll('a')).toHaveLength(0);
    expect(field('Password').getAttribute('aria-invalid')).toBeNull();
    expect(document.getElementById('password-error')?.textContent).toBe('');
    expect(currentPath()).toBe('/login');
    // The next try starts from an empty password (the address stays), not marked as missing.
    expect(field('Password').value).toBe('');
    expect(field('Email address').value).toBe(ADA.email);
    expect(summary.querySelectorAll('a')).toHaveLength(0);
  });

  it('names each empty field in its own words', async () => {
    const app = renderApp('/login');
    await app.user.click(await screen.findByRole('button', { name: 'Sign in' }));
    const summary = await findSummary();
    expect([...summary.querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      'Email address: Enter your email address.',
      'Password: Enter your password.',
    ]);
  });

  it('keeps the summary as it was at submit while the person types, and updates it on the next submit', async () => {
    const app = renderApp('/login');
    await app.user.click(await screen.findByRole('button', { name: 'Sign in' }));
    const summary = await findSummary();
    await waitFor(() => expect(document.activeElement).toBe(summary));
    await app.user.type(field('Email address'), ADA.email);
    expect(summary.querySelectorAll('a')).toHaveLength(2);
    expect(document.getElementById('email-error')?.textContent).toBe('');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(summary.querySelectorAll('a')).toHaveLength(1));
  });

  it('explains why after the session ended, and puts back the email from a link', async () => {
    renderApp('/login?next=%2Fsettings&expired=1&email=ada%40example.com');
    expect((await screen.findByText('You were signed out. Sign in again to change your password.')).tagName).toBe('P');
    expect(field('Email address').value).toBe('ada@example.com');
  });

  it('explains a rate limit with the wait time instead of showing the raw answer', async () => {
    const app = renderApp('/login', { 'account.signIn': () => problem(429, 'rate_limited', { retryAfter: 42 }) });
    await signIn(app);
    const summary = await findSummary();
    expect(summary.textContent).toBe(message('rate_limited', 'en', { retryAfter: 42 }));
    expect(summary.textContent).toContain('42 seconds');
    await waitFor(() => expect(document.activeElement).toBe(summary));
    expect(screen.getByRole('button', { name: 'Sign in' }).hasAttribute('disabled')).toBe(false);
  });

  it('explains a network failure and what to do', async () => {
    const app = renderApp('/login', {
      'account.signIn': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await signIn(app);
    expect((await findSummary()).textContent).toBe(
      'The service could not be reached. Check your internet connection, then try again.',
    );
  });

  it('sends a signed-out visitor of settings to sign-in and back to settings afterwards', async () => {
    let signedIn = false;
    const app = renderApp('/settings', {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'account.signIn': () => {
        signedIn = true;
        return { data: { user: ADA } };
      },
    });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(currentPath()).toBe('/login?next=%2Fsettings');
    await signIn(app);
    await screen.findByLabelText('Current password');
    expect(currentPath()).toBe('/settings');
  });

  it('never follows a return address to another site', async () => {
    const app = renderApp('/login?next=//evil.example/steal', { 'account.signIn': () => ({ data: { user: ADA } }) });
    await signIn(app);
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(currentPath()).toBe('/account');
  });
});

describe('sign-in page, second step', () => {
  const SECOND_STEP = problem(401, 'second_factor_required', { methods: ['totp', 'recovery_code'] });
  const WRONG_CODE = problem(422, 'validation_failed', {
    errors: [{ field: 'code', code: 'code_incorrect', message: 'x' }],
  });

  it('asks for the code from the app after a correct password, and signs in with it', async () => {
    let signedIn = false;
    const app = renderApp('/login?next=%2Fsettings%2Factivity', {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'account.signIn': () => SECOND_STEP,
      'account.signInSecondStep': (input) => {
        // Sent as typed: the server drops the spaces apps show between the digits.
        if ((input as { code: string }).code.replace(/\s/g, '') !== '123456') return WRONG_CODE;
        signedIn = true;
        return { data: { user: ADA } };
      },
      'security.activity': () => ({ data: { events: [], nextCursor: null } }),
    });
    await signIn(app);

    const code = await screen.findByLabelText<HTMLInputElement>('6-digit code');
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe(
      'Enter the 6-digit code from your authenticator app',
    );
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Sign in');
    expect(code.name).toBe('code');
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(code.getAttribute('inputmode')).toBe('numeric');
    expect(code.getAttribute('aria-describedby')).toBe('code-help');
    expect(document.getElementById('code-help')?.textContent).toContain('authenticator app');
    await waitFor(() => expect(document.activeElement).toBe(code));
    // The password is not on the page any more, and nothing was sent for the code yet.
    expect(screen.queryByLabelText('Password')).toBeNull();
    expect(app.api.callsTo('account.signInSecondStep')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect([...(await findSummary()).querySelectorAll('a')].map((a) => a.textContent)).toEqual([
      '6-digit code: Enter the 6-digit code from your authenticator app.',
    ]);
    expect(app.api.callsTo('account.signInSecondStep')).toHaveLength(0);

    await app.user.type(code, '654321');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() =>
      expect(document.getElementById('code-error')?.textContent).toBe(message('code_incorrect', 'en')),
    );
    expect(code.getAttribute('aria-invalid')).toBe('true');

    await app.user.clear(code);
    await app.user.type(code, '123 456');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { level: 1, name: 'Recent activity' });
    expect(currentPath()).toBe('/settings/activity');
    expect(app.api.callsTo('account.signIn')).toHaveLength(1);
    expect(app.api.callsTo('account.signInSecondStep').map((c) => c.input)).toEqual([
      { code: '654321' },
      { code: '123 456' },
    ]);
  });

  it('takes a recovery code instead, in its own words and without the number pad, and back', async () => {
    const app = renderApp('/login', {
      'account.signIn': () => SECOND_STEP,
      'account.signInSecondStep': () => ({ data: { user: ADA, recoveryCodeUsed: true } }),
    });
    await signIn(app);
    await screen.findByLabelText('6-digit code');
    await app.user.click(screen.getByRole('button', { name: 'Use a recovery code instead' }));

    const code = await screen.findByLabelText<HTMLInputElement>('Recovery code');
    expect(code.name).toBe('code');
    expect(code.hasAttribute('inputmode')).toBe(false);
    expect(code.getAttribute('autocomplete')).toBe('off');
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Enter a recovery code');
    expect(document.getElementById('code-help')?.textContent).toContain('Each code works only once.');
    await waitFor(() => expect(document.activeElement).toBe(code));
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await findSummary()).textContent).toContain('Recovery code: Enter one of your recovery codes.');
    await app.user.type(code, 'not a code');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() =>
      expect(document.getElementById('code-error')?.textContent).toBe(message('second_step_code_format', 'en')),
    );
    expect(app.api.callsTo('account.signInSecondStep')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Use your authenticator app instead' }));
    const appCode = await screen.findByLabelText<HTMLInputElement>('6-digit code');
    expect(appCode.value).toBe('');
    expect(appCode.getAttribute('inputmode')).toBe('numeric');
    await app.user.click(screen.getByRole('button', { name: 'Use a recovery code instead' }));
    await app.user.type(await screen.findByLabelText('Recovery code'), 'abcde-fghjk');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    // A recovery code used up: the account page, which says so.
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(currentPath()).toBe('/account?notice=recovery_code_used');
    expect(app.api.callsTo('account.signInSecondStep').map((c) => c.input)).toEqual([{ code: 'abcde-fghjk' }]);
  });

  it('after a recovery code, still goes where the sign-in was for when that is another page', async () => {
    let signedIn = false;
    const app = renderApp('/login?next=%2Fsettings%2Factivity', {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'account.signIn': () => SECOND_STEP,
      'account.signInSecondStep': () => {
        signedIn = true;
        return { data: { user: ADA, recoveryCodeUsed: true } };
      },
      'security.activity': () => ({ data: { events: [], nextCursor: null } }),
    });
    await signIn(app);
    await app.user.click(await screen.findByRole('button', { name: 'Use a recovery code instead' }));
    await app.user.type(await screen.findByLabelText('Recovery code'), 'abcde-fghjk');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { level: 1, name: 'Recent activity' });
    expect(currentPath()).toBe('/settings/activity');
  });

  it('goes back to the password, saying why, when the pending sign-in has expired', async () => {
    const app = renderApp('/login', {
      'account.signIn': () => SECOND_STEP,
      'account.signInSecondStep': () => problem(401, 'sign_in_expired'),
    });
    await signIn(app);
    await app.user.type(await screen.findByLabelText('6-digit code'), '123456');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));

    const why = await screen.findByText(message('sign_in_expired', 'en'));
    await waitFor(() => expect(document.activeElement).toBe(why.closest('.notice')));
    expect(screen.queryByLabelText('6-digit code')).toBeNull();
    expect(field('Email address').value).toBe(ADA.email);
    expect(field('Password').value).toBe('');
    expect(currentPath()).toBe('/login');
    // A new password starts a new pending sign-in.
    await app.user.type(field('Password'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByLabelText('6-digit code');
    expect(app.api.callsTo('account.signIn')).toHaveLength(2);
  });

  it('explains a limit on codes with the wait, and starts again from the password on request', async () => {
    const app = renderApp(
      '/login',
      {
        'account.signIn': () => SECOND_STEP,
        'account.signInSecondStep': () => problem(429, 'too_many_attempts', { retryAfter: 600 }),
      },
      'de',
    );
    await app.user.type(await screen.findByLabelText('E-Mail-Adresse'), ADA.email);
    await app.user.type(field('Passwort'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Anmelden' }));
    await app.user.type(await screen.findByLabelText('6-stelliger Code'), '123456');
    await app.user.click(screen.getByRole('button', { name: 'Anmelden' }));
    expect((await findSummary()).textContent).toBe(message('too_many_attempts', 'de', { retryAfter: 600 }));

    await app.user.click(screen.getByRole('link', { name: 'Neu beginnen' }));
    await waitFor(() => expect(document.activeElement).toBe(field('E-Mail-Adresse')));
    expect(field('E-Mail-Adresse').value).toBe(ADA.email);
    expect(screen.queryByText(message('sign_in_expired', 'de'))).toBeNull();
  });

  it('says how many tries are left once two remain, and after the last one how long to wait', async () => {
    let answers = 0;
    const app = renderApp(
      '/login',
      {
        'account.signIn': () => SECOND_STEP,
        'account.signInSecondStep': () => {
          answers++;
          // A limit between two wrong codes counts no try: the tries said stay.
          if (answers === 2) return problem(429, 'rate_limited', { retryAfter: 3 });
          return answers < 4
            ? problem(422, 'validation_failed', { ...WRONG_CODE.problem, attemptsLeft: answers === 1 ? 2 : 1 })
            : problem(429, 'too_many_codes', { retryAfter: 840 });
        },
      },
      'fr',
    );
    await app.user.type(await screen.findByLabelText('Adresse e-mail'), ADA.email);
    await app.user.type(field('Mot de passe'), PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Se connecter' }));
    const code = await screen.findByLabelText<HTMLInputElement>('Code à 6 chiffres');
    expect(document.getElementById('attempts-left')?.textContent).toBe('');
    expect(code.getAttribute('aria-describedby')).toBe('code-help');

    await app.user.type(code, '111111');
    await app.user.click(screen.getByRole('button', { name: 'Se connecter' }));
    await waitFor(() => expect(document.getElementById('attempts-left')?.textContent).toBe('Il reste 2 essais.'));
    expect(code.getAttribute('aria-describedby')).toContain('code-help attempts-left');
    await app.user.click(screen.getByRole('button', { name: 'Se connecter' }));
    await waitFor(() => expect(document.querySelector('.error-summary')?.textContent).toMatch(/3\ssecondes/));
    expect(document.getElementById('attempts-left')?.textContent).toBe('Il reste 2 essais.');
    await app.user.click(screen.getByRole('button', { name: 'Se connecter' }));
    await waitFor(() => expect(document.getElementById('attempts-left')?.textContent).toBe('Il reste 1 essai.'));

    // The last try: back to the password, saying why and how long.
    await app.user.click(screen.getByRole('button', { name: 'Se connecter' }));
    const why = await screen.findByText(message('too_many_codes', 'fr', { retryAfter: 840 }));
    // In plain words: the wait in minutes, in the page's language.
    expect(why.textContent).toMatch(/^Trop de codes erronés\. Réessayez dans environ 14\sminutes\.$/);
    await waitFor(() => expect(document.activeElement).toBe(why.closest('.notice')));
    expect(screen.queryByLabelText('Code à 6 chiffres')).toBeNull();
    expect(field('Adresse e-mail').value).toBe(ADA.email);
  });
});
