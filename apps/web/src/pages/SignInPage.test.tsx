import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, UNAUTHENTICATED, type Reply } from '../test/fake-api';
import { currentPath, renderApp } from '../test/render-app';

const PASSWORD = 'violet tractor sings at midnight';
const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

async function signIn(app: ReturnType<typeof renderApp>) {
  await app.user.type(await screen.findByLabelText('Email address'), ADA.email);
  await app.user.type(field('Password'), PASSWORD);
  await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in page', () => {
  it('uses email and current-password autocomplete', async () => {
    renderApp('/login');
    expect((await screen.findByLabelText('Email address')).getAttribute('autocomplete')).toBe('email');
    expect(field('Password').autocomplete).toBe('current-password');
  });

  it('shows wrong credentials next to the password field', async () => {
    const app = renderApp('/login', {
      'account.signIn': () => problem(422, 'validation_failed', { errors: [{ field: 'password', code: 'credentials_invalid', message: 'x' }] }),
    });
    await signIn(app);
    await waitFor(() => expect(document.getElementById('password-error')?.textContent).toBe(message('credentials_invalid', 'en')));
    expect(field('Password').getAttribute('aria-invalid')).toBe('true');
    expect(currentPath()).toBe('/login');
  });

  it('explains a rate limit with the wait time instead of showing the raw answer', async () => {
    const app = renderApp('/login', { 'account.signIn': () => problem(429, 'rate_limited', { retryAfter: 42 }) });
    await signIn(app);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(message('rate_limited', 'en', { retryAfter: 42 }));
    expect(alert.textContent).toContain('42 seconds');
    await waitFor(() => expect(document.activeElement).toBe(alert));
    expect(screen.getByRole('button', { name: 'Sign in' }).hasAttribute('disabled')).toBe(false);
  });

  it('explains a network failure and what to do', async () => {
    const app = renderApp('/login', {
      'account.signIn': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await signIn(app);
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The service could not be reached. Check your internet connection, then try again.',
    );
  });

  it('sends a signed-out visitor of settings to sign-in and back to settings afterwards', async () => {
    let signedIn = false;
    const app = renderApp('/settings', {
      'account.me': (): Reply => (signedIn ? { data: { user: ADA } } : UNAUTHENTICATED),
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
