import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, UNAUTHENTICATED, type Reply } from '../test/fake-api';
import { currentPath, findSummary, renderApp } from '../test/render-app';

const PASSWORD = 'violet tractor sings at midnight';
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

async function signIn(app: ReturnType<typeof renderApp>) {
  await app.user.type(await screen.findByLabelText('Email address'), ADA.email);
  await app.user.type(field('Password'), PASSWORD);
  await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in page', () => {
  it('uses username and current-password autocomplete, and marks both fields required', async () => {
    renderApp('/login');
    expect((await screen.findByLabelText('Email address')).getAttribute('autocomplete')).toBe('username');
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
      'account.me': (): Reply<'account.me'> => (signedIn ? { data: { user: ADA } } : UNAUTHENTICATED),
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
