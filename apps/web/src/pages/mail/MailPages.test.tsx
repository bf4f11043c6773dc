import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, signedInAs, UNAUTHENTICATED } from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

const NEW_PASSWORD = 'quiet harbor lanterns drifting east';
const TOKEN = 'A'.repeat(43);
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

describe('forgotten password', () => {
  it('the sign-in page links to the request page, which always says the same after sending', async () => {
    const app = renderApp('/login', { 'email.forgotPassword': () => ({ data: { ok: true } }) });
    await app.user.click(await screen.findByRole('link', { name: 'Forgot your password?' }));
    await waitFor(() => expect(currentPath()).toBe('/forgot-password'));
    await screen.findByRole('button', { name: 'Send the link' });
    await app.user.type(field('Email address'), 'someone@example.com');
    await app.user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toContain(
      'If an account exists for someone@example.com, we have sent a link to it.',
    );
    expect(app.api.callsTo('email.forgotPassword')[0]!.input).toEqual({ email: 'someone@example.com' });
  });

  it('when the address had its share of links, says so alike for every address, with when to ask again, in the page language', async () => {
    const app = renderApp(
      '/forgot-password',
      { 'email.forgotPassword': () => ({ data: { ok: true, retryAfter: 540 } }) },
      'fr',
    );
    await app.user.type(await screen.findByLabelText('Adresse e-mail'), 'someone@example.com');
    await app.user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      'Si un compte existe pour someone@example.com, nous y avons déjà envoyé un lien. Vérifiez vos indésirables si rien n’arrive. Vous pourrez demander un autre lien dans environ 9 minutes.' +
        'Retour à la connexion',
    );
  });

  it('the reset page takes the token off the address at once, sends it only with the new password, and then asks to sign in', async () => {
    let signedIn = true;
    const app = renderApp(`/reset-password?token=${TOKEN}`, {
      'account.me': () => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'email.resetPassword': () => {
        signedIn = false;
        return { data: { ok: true, sessionsRevoked: 2, email: ADA.email } };
      },
    });
    await screen.findByLabelText('New password');
    await waitFor(() => expect(currentPath()).toBe('/reset-password'));
    // Loading the page sent nothing with the token.
    expect(app.api.callsTo('email.resetPassword')).toEqual([]);
    await app.user.type(field('New password'), NEW_PASSWORD);
    await app.user.type(field('Confirm new password'), NEW_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Set new password' }));
    // Signed out here too: the sign-in page, which says why, with the account's address filled in
    // and nothing else of the reset in the address.
    await waitFor(() => expect(currentPath()).toBe(`/login?email=${encodeURIComponent(ADA.email)}`));
    expect(app.api.callsTo('email.resetPassword')).toEqual([
      {
        path: 'email.resetPassword',
        input: { token: TOKEN, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
      },
    ]);
    // Beside the passkey button's (empty) live region, the reset's status says it.
    const said = await screen.findByText(
      'Your password has been reset and every device was signed out. Sign in with your new password.',
    );
    expect(said.closest('[role=status]')).not.toBeNull();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(field('Email address').value).toBe(ADA.email);
    // The link was checked when the page opened (read only), once.
    expect(app.api.callsTo('email.checkLink')).toEqual([
      { path: 'email.checkLink', input: { purpose: 'reset_password', token: TOKEN } },
    ]);
  });

  it('a used reset link says so at once, with the form for a new link filled in, and no password fields', async () => {
    const app = renderApp(`/reset-password?token=${TOKEN}`, {
      'email.checkLink': () => ({ data: { state: 'used', email: ADA.email } }),
      'email.forgotPassword': () => ({ data: { ok: true } }),
    });
    expect((await screen.findByText(/already used/)).textContent).toBe(
      'This link was already used, or a newer one was sent since.',
    );
    expect(screen.queryByLabelText('New password')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Send a new link' })).toBeTruthy();
    expect(field('Email address').value).toBe(ADA.email);
    const send = screen.getByRole('button', { name: 'Send the link' });
    expect(send.closest('form')!.getAttribute('method')).toBe('post');
    await app.user.click(send);
    expect(await screen.findByText(/we have sent a link/)).toBeTruthy();
    expect(app.api.callsTo('email.forgotPassword')).toEqual([
      { path: 'email.forgotPassword', input: { email: ADA.email } },
    ]);
    expect(app.api.callsTo('email.resetPassword')).toEqual([]);
  });

  it('an expired or unknown reset link says which, in the page language; an unknown one fills in nothing', async () => {
    renderApp(`/reset-password?token=${TOKEN}`, { 'email.checkLink': () => ({ data: { state: 'unknown' } }) }, 'fr');
    expect((await screen.findByText(/n’est pas valide/)).textContent).toBe(
      'Ce lien n’est pas valide. Vérifiez que vous avez ouvert le lien entier reçu par e-mail.',
    );
    expect(screen.getByRole('heading', { name: 'Envoyer un nouveau lien' })).toBeTruthy();
    expect(field('Adresse e-mail').value).toBe('');
  });

  it('an expired reset link says so in German', async () => {
    renderApp(
      `/reset-password?token=${TOKEN}`,
      { 'email.checkLink': () => ({ data: { state: 'expired', email: ADA.email } }) },
      'de',
    );
    expect(await screen.findByText('Dieser Link ist abgelaufen.')).toBeTruthy();
    expect(screen.queryByLabelText('Neues Passwort')).toBeNull();
    expect(field('E-Mail-Adresse').value).toBe(ADA.email);
  });

  it('a used or expired link says so and offers a new one', async () => {
    const app = renderApp(`/reset-password?token=${TOKEN}`, {
      'email.resetPassword': () =>
        problem(400, 'reset_token_invalid', {
          errors: [{ field: 'token', code: 'reset_token_invalid', message: message('reset_token_invalid', 'en') }],
        }),
    });
    await app.user.type(await screen.findByLabelText('New password'), NEW_PASSWORD);
    await app.user.type(field('Confirm new password'), NEW_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Set new password' }));
    expect((await findSummary()).textContent).toContain(message('reset_token_invalid', 'en'));
    expect(screen.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('/forgot-password');
  });

  it('without a token, the reset page sends the person to ask for a link', async () => {
    renderApp('/reset-password');
    expect((await screen.findByRole('link', { name: 'Ask for a new link' })).getAttribute('href')).toBe(
      '/forgot-password',
    );
  });
});

describe('address verification', () => {
  it('a used verification link says so at once; signed out, the way to a new link is signing in, the address filled in', async () => {
    const app = renderApp(`/verify-email?token=${TOKEN}`, {
      'email.checkLink': () => ({ data: { state: 'used', email: ADA.email } }),
      'email.verificationLink': () => problem(400, 'verify_token_invalid'),
    });
    expect(await screen.findByText('This link was already used, or a newer one was sent since.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Confirm this address' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Sign in to send a new link' }).getAttribute('href')).toBe(
      `/login?next=%2Faccount&email=${encodeURIComponent(ADA.email)}`,
    );
    expect(app.api.callsTo('email.checkLink')).toEqual([
      { path: 'email.checkLink', input: { purpose: 'verify_email', token: TOKEN } },
    ]);
  });

  it("an expired verification link, signed in, offers the account's own resend form", async () => {
    const app = renderApp(`/verify-email?token=${TOKEN}`, {
      'account.me': () => signedInAs(ADA),
      'email.checkLink': () => ({ data: { state: 'expired', email: ADA.email } }),
      'email.verificationLink': () => problem(400, 'verify_token_invalid'),
      'email.resendVerification': () => ({ data: { ok: true, alreadyVerified: false } }),
    });
    expect(await screen.findByText('This link has expired.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Send a new link' })).toBeTruthy();
    const resend = await screen.findByRole('button', { name: /send/i });
    expect(resend.closest('form')!.getAttribute('method')).toBe('post');
    await app.user.click(resend);
    await waitFor(() => expect(app.api.callsTo('email.resendVerification')).toHaveLength(1));
  });

  it('the verification page shows what the link would confirm, and confirms only with its button, in the page language', async () => {
    const app = renderApp(
      `/verify-email?token=${TOKEN}`,
      {
        'email.verificationLink': () => ({ data: { email: ADA.email, realmName: 'Acme Inc' } }),
        'email.verifyEmail': () => ({ data: { ok: true, emailVerified: true } }),
      },
      'de',
    );
    expect((await screen.findByText(/Bestätigen Sie/)).textContent).toBe(
      `Bestätigen Sie ${ADA.email} als E-Mail-Adresse Ihres Kontos bei Acme Inc.`,
    );
    expect(currentPath()).toBe('/verify-email');
    const button = screen.getByRole('button', { name: 'Diese Adresse bestätigen' });
    expect(button.closest('form')!.getAttribute('method')).toBe('post');
    expect(app.api.callsTo('email.verificationLink')).toEqual([
      { path: 'email.verificationLink', input: { token: TOKEN } },
    ]);
    expect(app.api.callsTo('email.verifyEmail')).toEqual([]);
    await app.user.click(button);
    expect(await screen.findByText('Ihre E-Mail-Adresse ist bestätigt.')).toBeTruthy();
    expect(app.api.callsTo('email.verifyEmail')).toEqual([{ path: 'email.verifyEmail', input: { token: TOKEN } }]);
  });

  it('a verification link that would confirm nothing says so, without a button', async () => {
    const app = renderApp(`/verify-email?token=${TOKEN}`, {
      'email.verificationLink': () =>
        problem(400, 'verify_token_invalid', {
          errors: [{ field: 'token', code: 'verify_token_invalid', message: message('verify_token_invalid', 'en') }],
        }),
    });
    expect(await screen.findByText(/This link did not work/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Confirm this address' })).toBeNull();
    expect(app.api.callsTo('email.verifyEmail')).toEqual([]);
  });

  it('the account page shows an unconfirmed address and sends the link again', async () => {
    const app = renderApp('/account', {
      'account.me': () => signedInAs({ ...ADA, emailVerified: false }),
      'email.resendVerification': () => ({ data: { ok: true, alreadyVerified: false } }),
    });
    expect((await screen.findByText(/Not confirmed yet/)).textContent).toContain('Not confirmed yet');
    await app.user.click(screen.getByRole('button', { name: 'Send the link again' }));
    expect((await screen.findByText(/We have sent a new link/)).textContent).toBe(
      `We have sent a new link to ${ADA.email}.`,
    );
  });

  it('the account page says when the address is confirmed', async () => {
    renderApp('/account', { 'account.me': () => signedInAs({ ...ADA, emailVerified: true }) });
    expect(await screen.findByText(/Confirmed/)).toBeTruthy();
  });
});

describe('change of address', () => {
  it('an expired change-of-address link says so at once and leads to asking again, telling no address', async () => {
    const app = renderApp(`/confirm-email-change?token=${TOKEN}`, {
      'email.checkLink': () => ({ data: { state: 'expired' } }),
      'emailChange.link': () => problem(400, 'email_change_token_invalid'),
    });
    expect(await screen.findByText('This link has expired.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Move my account to this address' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Ask for another change' }).getAttribute('href')).toBe('/settings/email');
    expect(app.api.callsTo('email.checkLink')).toEqual([
      { path: 'email.checkLink', input: { purpose: 'change_email', token: TOKEN } },
    ]);
    expect(app.api.callsTo('emailChange.confirm')).toEqual([]);
  });
});
