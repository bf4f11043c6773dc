import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { relativeTime } from '../relative-time';
import { ADA, problem, signedInAs, UNAUTHENTICATED, type Reply } from '../test/fake-api';
import { currentPath, findSummary, renderApp } from '../test/render-app';

const signedIn = { 'account.me': (): Reply<'account.me'> => signedInAs(ADA) };
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
const WRONG_PASSWORD = problem(422, 'validation_failed', {
  errors: [{ field: 'current_password', code: 'password_incorrect', message: 'x' }],
});
const SESSIONS = [
  {
    id: 's-1',
    current: true,
    device: 'Firefox 128 on Windows 10',
    address: '203.0.113.x',
    createdAt: ago(7200),
    lastUsedAt: ago(5),
  },
  {
    id: 's-2',
    current: false,
    device: 'Mobile Safari 17 on iOS 17.5',
    address: '2001:db8:85a3::/48',
    createdAt: ago(3 * 86400),
    lastUsedAt: ago(3600),
  },
  { id: 's-3', current: false, device: null, address: null, createdAt: ago(86400), lastUsedAt: ago(600) },
];

describe('relative times', () => {
  it("speak the person's language", () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(relativeTime('2026-01-10T11:57:00Z', 'en', now)).toBe('3 minutes ago');
    expect(relativeTime('2026-01-10T10:00:00Z', 'de', now)).toBe('vor 2 Stunden');
    expect(relativeTime('2026-01-09T12:00:00Z', 'fr', now)).toBe('hier');
    expect(relativeTime('2026-01-10T11:59:59Z', 'en', now)).toBe('now');
  });
});

describe('where you are signed in', () => {
  it('lists the devices, this one first, and ends one of the others after the current password', async () => {
    let list = SESSIONS;
    const app = renderApp('/settings/sessions', {
      ...signedIn,
      'security.sessions': () => ({ data: { sessions: list } }),
      'security.revokeSession': (input) => {
        const { session_id, current_password } = input as { session_id: string; current_password: string };
        if (current_password !== 'the right one') return WRONG_PASSWORD;
        list = list.filter((s) => s.id !== session_id);
        return { data: { ok: true, signedOut: false } };
      },
    });
    const items = await screen.findAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(within(items[0]!).getByRole('heading').textContent).toBe('Firefox 128 on Windows 10This device');
    expect(items[1]!.textContent).toContain('2001:db8:85a3::/48');
    expect(items[1]!.textContent).toContain('Last active 1 hour ago');
    expect(items[2]!.textContent).toContain('Unknown device');
    expect(within(items[0]!).queryByRole('link')).toBeNull();

    await app.user.click(screen.getByRole('link', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }));
    // A confirm step: the password field takes focus; nothing is sent without it.
    const password = await screen.findByLabelText('Current password');
    expect(document.activeElement).toBe(password);
    expect(screen.getByText('Enter your current password to sign out Mobile Safari 17 on iOS 17.5.')).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }));
    expect((await findSummary()).textContent).toContain('Enter your current password.');
    expect(app.api.callsTo('security.revokeSession')).toHaveLength(0);
    await app.user.type(password, 'a wrong one');
    await app.user.click(screen.getByRole('button', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }));
    await waitFor(() =>
      expect(document.querySelector('.error-summary')!.textContent).toContain('The password is incorrect.'),
    );
    expect(document.querySelectorAll('.session')).toHaveLength(3);
    await app.user.clear(password);
    await app.user.type(password, 'the right one');
    await app.user.click(screen.getByRole('button', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }));
    await screen.findByText('That device was signed out.');
    expect(app.api.callsTo('security.revokeSession').map((c) => c.input)).toEqual([
      { session_id: 's-2', current_password: 'a wrong one' },
      { session_id: 's-2', current_password: 'the right one' },
    ]);
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(2));
    expect(screen.queryByLabelText('Current password')).toBeNull();
  });

  it("closes the confirm step on cancel, sending nothing, in the person's language", async () => {
    const app = renderApp(
      '/settings/sessions',
      { ...signedIn, 'security.sessions': () => ({ data: { sessions: SESSIONS } }) },
      'fr',
    );
    const opener = await screen.findByRole('link', { name: 'Se déconnecter partout ailleurs' });
    await app.user.click(opener);
    expect(document.activeElement).toBe(await screen.findByLabelText('Mot de passe actuel'));
    expect(
      screen.getByText('Saisissez votre mot de passe actuel pour déconnecter tous les autres appareils.'),
    ).toBeTruthy();
    await app.user.click(screen.getByRole('link', { name: 'Annuler' }));
    expect(screen.queryByLabelText('Mot de passe actuel')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Se déconnecter partout ailleurs' }));
    expect(app.api.callsTo('security.revokeOtherSessions')).toHaveLength(0);
  });

  it('signs out everywhere else, then says this is the only device', async () => {
    let list = SESSIONS;
    const app = renderApp('/settings/sessions', {
      ...signedIn,
      'security.sessions': () => ({ data: { sessions: list } }),
      'security.revokeOtherSessions': () => {
        list = list.filter((s) => s.current);
        return { data: { ok: true, revoked: 2 } };
      },
    });
    await app.user.click(await screen.findByRole('link', { name: 'Sign out everywhere else' }));
    await app.user.type(await screen.findByLabelText('Current password'), 'the right one');
    // Ending sessions is danger: its own look, in a block of its own, with Cancel beside it.
    const end = screen.getByRole('button', { name: 'Sign out everywhere else' });
    expect(end.className).toBe('primary danger');
    expect(end.closest('.danger-zone')?.querySelector('a')?.textContent).toBe('Cancel');
    await app.user.click(end);
    await screen.findByText('2 other devices were signed out.');
    expect(app.api.callsTo('security.revokeOtherSessions')[0]!.input).toEqual({ current_password: 'the right one' });
    await screen.findByText('You are signed in on this device only.');
  });

  it('goes to sign-in, saying why, when this device was signed out elsewhere', async () => {
    renderApp('/settings/sessions', { ...signedIn, 'security.sessions': () => UNAUTHENTICATED });
    await waitFor(() => expect(currentPath()).toBe('/login?next=%2Fsettings%2Fsessions&expired=1'));
  });
});

describe('recent activity', () => {
  it('shows events in German with failures marked, and loads older ones', async () => {
    const app = renderApp(
      '/settings/activity',
      {
        ...signedIn,
        'security.activity': (input) =>
          (input as { cursor?: string } | undefined)?.cursor === 'older'
            ? {
                data: {
                  events: [
                    {
                      id: '1',
                      at: ago(86400 * 3),
                      type: 'registered',
                      device: null,
                      address: null,
                      failed: false,
                      app: null,
                    },
                  ],
                  nextCursor: null,
                },
              }
            : {
                data: {
                  events: [
                    {
                      id: '3',
                      at: ago(120),
                      type: 'sign_in_failed',
                      device: 'curl 8.5',
                      address: '198.51.100.x',
                      failed: true,
                      app: null,
                    },
                    {
                      id: '2',
                      at: ago(7200),
                      type: 'something_new',
                      device: 'Firefox 128 on Windows 10',
                      address: '203.0.113.x',
                      failed: false,
                      app: null,
                    },
                  ],
                  nextCursor: 'older',
                },
              },
      },
      'de',
    );
    const failed = await screen.findByText('Anmeldung mit falschem Passwort');
    const item = failed.closest('li')!;
    expect(item.className).toContain('failed');
    expect(item.textContent).toContain('Fehlgeschlagen');
    expect(item.textContent).toContain('vor 2 Minuten');
    expect(item.textContent).toContain('curl 8.5, 198.51.100.x');
    expect(screen.getByText('Anderes Ereignis (something_new)')).toBeTruthy();
    await app.user.click(screen.getByRole('link', { name: 'Ältere Aktivität anzeigen' }));
    await screen.findByText('Konto erstellt');
    expect(screen.queryByRole('link', { name: 'Ältere Aktivität anzeigen' })).toBeNull();
    expect(app.api.callsTo('security.activity').map((c) => c.input)).toEqual([{}, { cursor: 'older' }]);
  });
});

describe('name and deletion', () => {
  it("changes the name, showing the server's field error first", async () => {
    let tries = 0;
    const app = renderApp('/settings/name', {
      ...signedIn,
      'security.changeName': (input) =>
        ++tries === 1
          ? problem(422, 'validation_failed', {
              errors: [{ field: 'name', code: 'name_too_long', message: 'x', params: { max: 150 } }],
            })
          : { data: { user: { ...ADA, name: (input as { name: string }).name } } },
    });
    const name = await screen.findByLabelText<HTMLInputElement>('Name');
    expect(name.value).toBe('Ada Lovelace');
    await app.user.clear(name);
    await app.user.type(name, 'Ada King');
    await app.user.click(screen.getByRole('button', { name: 'Save name' }));
    expect((await findSummary()).textContent).toContain('Use at most 150 characters.');
    await app.user.click(screen.getByRole('button', { name: 'Save name' }));
    await screen.findByText('Your name has been changed to Ada King.');
  });

  it('says what deletion removes, refuses a wrong password, and confirms the deletion', async () => {
    let deleted = false;
    const app = renderApp('/settings/delete', {
      'account.me': () => (deleted ? UNAUTHENTICATED : signedInAs(ADA)),
      'security.deleteAccount': (input) => {
        if ((input as { current_password: string }).current_password !== 'the right one') {
          return problem(422, 'validation_failed', {
            errors: [{ field: 'current_password', code: 'password_incorrect', message: 'x' }],
          });
        }
        deleted = true;
        return { data: { ok: true } };
      },
    });
    const password = await screen.findByLabelText('Current password');
    expect(document.querySelector('.delete-what')!.textContent).toContain('its activity history.');
    expect(document.querySelector('.delete-what')!.textContent).toContain('its passkeys, two-step sign-in');
    // A copy first, offered before the form; the form is danger, with a way back.
    const copy = screen.getByRole('link', { name: 'Download your data' });
    expect(copy.getAttribute('href')).toBe('/settings/data');
    const zone = password.closest('form.danger-zone')!;
    expect(copy.compareDocumentPosition(zone) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(within(zone as HTMLElement).getByRole('button', { name: 'Delete my account' }).className).toBe(
      'primary danger',
    );
    expect(
      within(zone as HTMLElement)
        .getByRole('link', { name: 'Cancel' })
        .getAttribute('href'),
    ).toBe('/account');
    await app.user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect((await findSummary()).textContent).toContain('Enter your current password.');
    expect(app.api.callsTo('security.deleteAccount')).toHaveLength(0);
    await app.user.type(password, 'a wrong one');
    await app.user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await waitFor(() =>
      expect(document.querySelector('.error-summary')!.textContent).toContain('The password is incorrect.'),
    );
    await app.user.clear(password);
    await app.user.type(password, 'the right one');
    await app.user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await screen.findByText('Your account has been deleted, and you have been signed out.');
    await screen.findByRole('link', { name: 'Sign in' });
    expect(currentPath()).toBe('/settings/delete');
  });
});
