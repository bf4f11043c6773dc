import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem } from '../test/fake-api';
import { currentPath, findSummary, renderApp } from '../test/render-app';

const NEW_PASSWORD = 'quiet harbor lanterns drifting east';
const TOKEN = 'A'.repeat(43);
const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

describe('forgotten password', () => {
  it('the sign-in page links to the request page, which always says the same after sending', async () => {
    const app = renderApp('/login', { 'email.forgotPassword': () => ({ data: { ok: true } }) });
    await app.user.click(await screen.findByRole('link', { name: 'Forgot your password?' }));
    await waitFor(() => expect(currentPath()).toBe('/forgot-password'));
    await screen.findByRole('button', { name: 'Send the link' });
    await app.user.type(field('Email address'), 'someone@example.com');
    await app.user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toContain('If an account exists for someone@example.com, we have sent a link to it.');
    expect(app.api.callsTo('email.forgotPassword')[0]!.input).toEqual({ email: 'someone@example.com' });
  });

  it('the reset page takes the token off the address at once, and sends it with the new password', async () => {
    const app = renderApp(`/reset-password?token=${TOKEN}`, {
      'email.resetPassword': () => ({ data: { user: ADA, otherSessionsRevoked: 2 } }),
    });
    await screen.findByLabelText('New password');
    await waitFor(() => expect(currentPath()).toBe('/reset-password'));
    await app.user.type(field('New password'), NEW_PASSWORD);
    await app.user.type(field('Confirm new password'), NEW_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Set new password' }));
    await waitFor(() => expect(currentPath()).toBe('/account'));
    expect(app.api.callsTo('email.resetPassword')[0]!.input).toEqual({ token: TOKEN, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD });
    expect((await screen.findByRole('status')).textContent).toContain('2 other devices were signed out.');
  });

  it('a used or expired link says so and offers a new one', async () => {
    const app = renderApp(`/reset-password?token=${TOKEN}`, {
      'email.resetPassword': () =>
        problem(400, 'reset_token_invalid', { errors: [{ field: 'token', code: 'reset_token_invalid', message: message('reset_token_invalid', 'en') }] }),
    });
    await app.user.type(await screen.findByLabelText('New password'), NEW_PASSWORD);
    await app.user.type(field('Confirm new password'), NEW_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Set new password' }));
    expect((await findSummary()).textContent).toContain(message('reset_token_invalid', 'en'));
    expect(screen.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('/forgot-password');
  });

  it('without a token, the reset page sends the person to ask for a link', async () => {
    renderApp('/reset-password');
    expect((await screen.findByRole('link', { name: 'Ask for a new link' })).getAttribute('href')).toBe('/forgot-password');
  });
});

describe('address verification', () => {
  it('the verification page confirms the address from the link, in the page language', async () => {
    const app = renderApp(`/verify-email?token=${TOKEN}`, { 'email.verifyEmail': () => ({ data: { ok: true, emailVerified: true } }) }, 'de');
    expect(await screen.findByText('Ihre E-Mail-Adresse ist bestätigt.')).toBeTruthy();
    expect(app.api.callsTo('email.verifyEmail')).toEqual([{ path: 'email.verifyEmail', input: { token: TOKEN } }]);
    expect(currentPath()).toBe('/verify-email');
  });

  it('the account page shows an unconfirmed address and sends the link again', async () => {
    const app = renderApp('/account', {
      'account.me': () => ({ data: { user: { ...ADA, emailVerified: false } } }),
      'email.resendVerification': () => ({ data: { ok: true, alreadyVerified: false } }),
    });
    expect((await screen.findByText(/Not confirmed yet/)).textContent).toContain('Not confirmed yet');
    await app.user.click(screen.getByRole('button', { name: 'Send the link again' }));
    expect((await screen.findByText(/We have sent a new link/)).textContent).toBe(`We have sent a new link to ${ADA.email}.`);
  });

  it('the account page says when the address is confirmed', async () => {
    renderApp('/account', { 'account.me': () => ({ data: { user: { ...ADA, emailVerified: true } } }) });
    expect(await screen.findByText(/Confirmed/)).toBeTruthy();
  });
});
