import { message } from '@accounts/validators';
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ErrorBoundary } from './components/ErrorBoundary';
import { LocaleProvider } from './i18n';
import { ADA, problem, UNAUTHENTICATED, type Reply } from './test/fake-api';
import { currentPath, renderApp } from './test/render-app';

describe('app shell', () => {
  it('sends / to sign-in when signed out', async () => {
    renderApp('/');
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(currentPath()).toBe('/login');
  });

  it('sends / to the account page when signed in', async () => {
    renderApp('/', { 'account.me': () => ({ data: { user: ADA } }) });
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(currentPath()).toBe('/account');
  });

  it('shows the realm on every page', async () => {
    for (const path of ['/login', '/register', '/nowhere']) {
      const { unmount } = renderApp(path);
      await screen.findByRole('heading', { level: 1 });
      expect(screen.getByRole('banner').textContent).toContain('Acme Inc');
      unmount();
    }
  });

  it('signs out from the header and lands on sign-in', async () => {
    let signedIn = true;
    const { user, api } = renderApp('/account', {
      'account.me': (): Reply => (signedIn ? { data: { user: ADA } } : UNAUTHENTICATED),
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
      'account.settings': (): Reply => (ready ? { data: { realm: { slug: 'default', name: 'Default' }, passwordPolicy: { minLength: 15, maxLength: 256 } } } : problem(503, 'not_ready', { retryAfter: 5 })),
    });
    expect((await screen.findByRole('alert')).textContent).toContain(message('not_ready', 'en'));
    ready = true;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(screen.getByRole('banner').textContent).toContain('Default');
  });

  it('speaks German to a German browser, errors included', async () => {
    const { user } = renderApp('/register', {}, 'de');
    await screen.findByRole('heading', { level: 1, name: 'Konto erstellen' });
    await user.click(screen.getByRole('button', { name: 'Konto erstellen' }));
    expect((await screen.findByRole('alert')).textContent).toContain(`Name: ${message('required', 'de')}`);
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
