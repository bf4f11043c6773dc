import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, signedInAs, type Reply } from '../../test/fake-api';
import { findSummary, renderApp } from '../../test/render-app';

const PROVIDERS = {
  'upstream.providers': (): Reply<'upstream.providers'> => ({
    data: {
      providers: [
        { id: 'google', name: 'Google', kind: 'google' },
        { id: 'github', name: 'GitHub', kind: 'github' },
      ],
    },
  }),
};
const hrefOf = (name: string) => screen.getByRole('link', { name }).getAttribute('href');

describe('signing in with other providers', () => {
  it('offers each provider of the realm on the sign-in page, returning to the page asked for', async () => {
    renderApp('/login?next=%2Fsettings%2Fapps', PROVIDERS);
    await screen.findByRole('link', { name: 'Continue with Google' });
    expect(hrefOf('Continue with Google')).toBe('/users/oauth/google/start?next=%2Fsettings%2Fapps');
    expect(hrefOf('Continue with GitHub')).toBe('/users/oauth/github/start?next=%2Fsettings%2Fapps');
  });

  it('offers them on the register page too', async () => {
    renderApp('/register', PROVIDERS);
    await screen.findByRole('link', { name: 'Continue with Google' });
    expect(hrefOf('Continue with Google')).toBe('/users/oauth/google/start');
  });

  it('shows no provider link when the realm has none', async () => {
    const app = renderApp('/login');
    await screen.findByLabelText('Email address');
    await waitFor(() => expect(app.api.callsTo('upstream.providers').length).toBeGreaterThan(0));
    expect(screen.queryByRole('link', { name: /^Continue with/ })).toBeNull();
  });

  it('says what went wrong at the provider, as the error summary', async () => {
    renderApp('/login?problem=upstream_email_unverified', PROVIDERS);
    const summary = await findSummary();
    expect(summary.querySelector('h2')?.textContent).toBe(message('upstream_email_unverified', 'en'));
  });

  it('asks to sign in to the account an identity waits to be linked to', async () => {
    renderApp('/login?link=pending', PROVIDERS);
    await screen.findByText(message('upstream_link_required', 'en'));
  });

  it('opens at the second step the address names', async () => {
    renderApp('/login?step=second&methods=totp%20recovery_code', PROVIDERS);
    await screen.findByText('Enter the 6-digit code from your authenticator app');
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('says on the connected accounts that an unconfirmed account was taken over', async () => {
    renderApp('/settings/connections?notice=upstream_took_over', {
      'account.me': () => signedInAs(ADA),
      'connections.list': () => ({ data: { connections: [], available: [], hasPassword: false } }),
    });
    await screen.findByText(
      'Your account’s earlier password and sessions were ended: the address was confirmed by the provider you signed in with.',
    );
  });
});
