import { message } from '@accounts/validators';
import { render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ErrorBoundary } from './components/ErrorBoundary';
import { LocaleProvider } from './i18n';
import {
  ACME_SETTINGS,
  ADA,
  DEFAULT_SETTINGS,
  deferred,
  problem,
  signedInAs,
  UNAUTHENTICATED,
  type Reply,
} from './test/fake-api';
import { currentPath, findSummary, renderApp } from './test/render-app';

describe('app shell', () => {
  it('sends / to sign-in when signed out', async () => {
    renderApp('/');
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(currentPath()).toBe('/login');
  });

  it('sends / to the account page when signed in', async () => {
    renderApp('/', { 'account.me': () => signedInAs(ADA) });
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(currentPath()).toBe('/account');
  });

  it('names the product and a realm other than the default one on every page, and in the title', async () => {
    for (const path of ['/login', '/register', '/nowhere']) {
      const { unmount } = renderApp(path);
      await waitFor(() => expect(screen.getByRole('banner').textContent).toContain('Acme Inc'));
      expect(screen.getByRole('banner').textContent).toContain('Example ID');
      await waitFor(() => expect(document.title).toMatch(/ · Acme Inc · Example ID$/));
      unmount();
    }
    renderApp('/login', { 'account.settings': () => ({ data: DEFAULT_SETTINGS }) });
    await waitFor(() => expect(document.title).toBe('Sign in · Example ID'));
    expect(screen.getByRole('banner').textContent).not.toContain('Default');
  });

  it('draws the frame and the heading before the realm settings arrive, and no navigation until the session is known', async () => {
    const settings = deferred<Reply<'account.settings'>>();
    const me = deferred<Reply<'account.me'>>();
    renderApp('/login', { 'account.settings': () => settings.promise, 'account.me': () => me.promise });
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeTruthy();
    expect(screen.getByRole('banner').textContent).toContain('Accounts');
    expect(within(screen.getByRole('navigation')).queryAllByRole('link')).toHaveLength(0);
    me.resolve(signedInAs(ADA));
    await within(screen.getByRole('navigation')).findByRole('link', { name: 'Account' });
    expect(within(screen.getByRole('navigation')).queryByRole('link', { name: 'Sign in' })).toBeNull();
    settings.resolve({ data: ACME_SETTINGS });
    await waitFor(() => expect(screen.getByRole('banner').textContent).toContain('Example ID'));
  });

  it('signs out from the header and lands on sign-in', async () => {
    let signedIn = true;
    const { user, api } = renderApp('/account', {
      'account.me': (): Reply<'account.me'> => (signedIn ? signedInAs(ADA) : UNAUTHENTICATED),
      'account.signOut': () => {
        signedIn = false;
        return { data: { ok: true } };
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(currentPath()).toBe('/login');
    expect(api.callsTo('account.signOut')).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
  });

  it('explains when the service is not ready, and loads once it is', async () => {
    let ready = false;
    const { user } = renderApp('/login', {
      'account.settings': (): Reply<'account.settings'> =>
        ready ? { data: DEFAULT_SETTINGS } : problem(503, 'not_ready', { retryAfter: 5 }),
    });
    expect((await screen.findByRole('alert')).textContent).toContain(message('not_ready', 'en'));
    ready = true;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByLabelText('Email address');
    expect(screen.getByRole('banner').textContent).toContain('Example ID');
  });

  it('speaks German to a German browser, errors included', async () => {
    const { user } = renderApp('/register', {}, 'de');
    await user.click(await screen.findByRole('button', { name: 'Konto erstellen' }));
    expect((await findSummary()).textContent).toContain('Name: Geben Sie Ihren Namen ein.');
    expect(screen.getByLabelText('Passwort bestätigen')).toBeTruthy();
  });
});

describe('error boundary', () => {
  it('replaces a crashed page with a way out', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const Broken = () => {
      throw new Error('boom');
    };
    render(
      <LocaleProvider locale="fr">
        <ErrorBoundary>
          <Broken />
        </ErrorBoundary>
      </LocaleProvider>,
    );
    expect(screen.getByRole('heading', { name: 'Une erreur est survenue' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Recharger la page' })).toBeTruthy();
    spy.mockRestore();
  });
});
