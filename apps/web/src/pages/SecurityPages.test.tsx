import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dayLabel, dayOf, relativeTime } from '../relative-time';
import { ADA, problem, signedInAs, UNAUTHENTICATED, type Reply } from '../test/fake-api';
import { currentPath, findSummary, renderApp } from '../test/render-app';
import type { ActivityEvent } from './activity/compact';

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

/** Intl's own resolvedOptions, for the spy that stands in for it to call. */
const intlOptions = Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'resolvedOptions')!.value as (
  this: Intl.DateTimeFormat,
) => Intl.ResolvedDateTimeFormatOptions;

/** The browser's clock stopped at `now`, and its own time zone `zone` (formats made with a zone keep theirs). */
function at(now: number, zone: string) {
  vi.spyOn(Date, 'now').mockReturnValue(now);
  const own = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockImplementation(function (this: Intl.DateTimeFormat) {
    const options = intlOptions.call(this);
    return options.timeZone === own ? { ...options, timeZone: zone } : options;
  });
}

afterEach(() => {
  vi.restoreAllMocks();
  document.cookie = 'time_zone=; Max-Age=0; Path=/';
});

describe('relative times', () => {
  it("speak the person's language", () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(relativeTime('2026-01-10T11:57:00Z', 'en', now)).toBe('3 minutes ago');
    expect(relativeTime('2026-01-10T10:00:00Z', 'de', now)).toBe('vor 2 Stunden');
    expect(relativeTime('2026-01-09T12:00:00Z', 'fr', now)).toBe('hier');
    expect(relativeTime('2026-01-10T11:59:59Z', 'en', now)).toBe('now');
  });

  it("name days as people do, in the person's zone and language", () => {
    // 00:30 on Saturday 10 January in Paris; still the 9th in UTC.
    const now = Date.parse('2026-01-09T23:30:00Z');
    expect(dayOf(now, 'Europe/Paris')).toBe('2026-01-10');
    expect(dayOf(now, 'UTC')).toBe('2026-01-09');
    expect(['2026-01-10', '2026-01-09', '2026-01-06'].map((d) => dayLabel(d, 'fr', 'Europe/Paris', now))).toEqual([
      'Aujourd’hui',
      'Hier',
      'Mardi 6 janvier',
    ]);
    expect(['2026-01-10', '2026-01-09', '2025-12-31'].map((d) => dayLabel(d, 'de', 'Europe/Paris', now))).toEqual([
      'Heute',
      'Gestern',
      'Mittwoch, 31. Dezember 2025',
    ]);
    expect(dayLabel('2026-01-09', 'en', 'UTC', now)).toBe('Today');
    // Yesterday by the calendar, across the end of a month and a change of the clocks.
    expect(dayLabel('2026-02-28', 'en', 'Europe/Paris', Date.parse('2026-03-01T12:00:00Z'))).toBe('Yesterday');
    expect(dayLabel('2026-03-28', 'en', 'Europe/Paris', Date.parse('2026-03-29T22:30:00Z'))).toBe('Saturday, March 28');
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

  it('groups the devices by the day each was last active, this one today', async () => {
    // 8:00 in Los Angeles (summer time since 8 March): 06:00 UTC today was 23:00 there yesterday.
    at(Date.parse('2026-03-10T15:00:00Z'), 'America/Los_Angeles');
    renderApp('/settings/sessions', {
      ...signedIn,
      'security.sessions': () => ({
        data: {
          sessions: [
            // In use now, whatever its last record says.
            { ...SESSIONS[0]!, lastUsedAt: '2026-03-09T10:00:00Z', createdAt: '2026-03-01T10:00:00Z' },
            { ...SESSIONS[1]!, lastUsedAt: '2026-03-10T06:00:00Z', createdAt: '2026-03-01T10:00:00Z' },
            { ...SESSIONS[2]!, lastUsedAt: '2025-12-24T08:00:00Z', createdAt: '2025-12-01T10:00:00Z' },
          ],
        },
      }),
    });
    await screen.findByText('Mobile Safari 17 on iOS 17.5');
    const days = [...document.querySelectorAll('.day-heading')];
    expect(days.map((h) => h.textContent)).toEqual(['Today', 'Yesterday', 'Wednesday, December 24, 2025']);
    expect(days.map((h) => h.closest('section')!.querySelector('h3')!.textContent)).toEqual([
      'Firefox 128 on Windows 10This device',
      'Mobile Safari 17 on iOS 17.5',
      'Unknown device',
    ]);
  });

  it('goes to sign-in, saying why, when this device was signed out elsewhere', async () => {
    renderApp('/settings/sessions', { ...signedIn, 'security.sessions': () => UNAUTHENTICATED });
    await waitFor(() => expect(currentPath()).toBe('/login?next=%2Fsettings%2Fsessions&expired=1'));
  });
});

describe('recent activity', () => {
  // 16:00 in Berlin on Tuesday 10 March 2026, the browser's zone: its days are the page's.
  const NOW = Date.parse('2026-03-10T15:00:00Z');
  const FIREFOX = 'Firefox 128 unter Windows 10';
  const event = (id: string, at: string, type: string, more: Partial<ActivityEvent> = {}): ActivityEvent => ({
    id,
    at,
    type,
    device: FIREFOX,
    address: '203.0.113.x',
    failed: false,
    app: null,
    ...more,
  });
  const inBerlin = () => at(NOW, 'Europe/Berlin');

  it("groups the events by the person's days, one row for a routine repeat, failures and new devices marked", async () => {
    inBerlin();
    const app = renderApp(
      '/settings/activity',
      {
        ...signedIn,
        'security.activity': (input) =>
          (input as { cursor?: string } | undefined)?.cursor === 'older'
            ? { data: { events: [event('10', '2026-03-06T09:00:00Z', 'registered')], nextCursor: null } }
            : {
                data: {
                  events: [
                    event('1', '2026-03-10T14:58:00Z', 'sign_in_failed', {
                      device: 'curl 8.5',
                      address: '198.51.100.x',
                      failed: true,
                    }),
                    event('2', '2026-03-10T14:00:00Z', 'rate_limited', { failed: true }),
                    event('3', '2026-03-10T12:00:00Z', 'signed_in'),
                    event('4', '2026-03-10T09:00:00Z', 'signed_in'),
                    // The first step of the sign-in just above: said by it.
                    event('5', '2026-03-10T08:59:00Z', 'sign_in_second_step'),
                    // 00:30 in Berlin: today there, though yesterday in UTC.
                    event('6', '2026-03-09T23:30:00Z', 'signed_in'),
                    event('7', '2026-03-09T20:00:00Z', 'signed_in', {
                      device: 'Mobile Safari 17 unter iOS 17.5',
                      address: '198.51.100.x',
                      newDevice: true,
                    }),
                    // The right password and no sign-in after it.
                    event('8', '2026-03-09T19:00:00Z', 'sign_in_second_step', {
                      device: 'curl 8.5',
                      address: '198.51.100.x',
                    }),
                    event('9', '2026-03-06T10:00:00Z', 'something_new'),
                  ],
                  nextCursor: 'older',
                },
              },
      },
      'de',
    );
    await screen.findByText('Anmeldung mit falschem Passwort');
    const days = () => [...document.querySelectorAll('.day-heading')].map((h) => h.textContent);
    expect(days()).toEqual(['Heute', 'Gestern', 'Freitag, 6. März']);
    const rowsOf = (day: number) => [...document.querySelectorAll('.activity')[day]!.querySelectorAll(':scope > li')];
    const labels = (day: number) => rowsOf(day).map((li) => li.querySelector('.event-what strong')!.textContent);
    expect(labels(0)).toEqual([
      'Anmeldung mit falschem Passwort',
      'Zu viele Anfragen in kurzer Zeit: Einige wurden nicht ausgeführt',
      'Angemeldet',
    ]);

    // A failed attempt: marked, with what to do if it was not the person.
    const [failed, refused, signIns] = rowsOf(0) as [HTMLElement, HTMLElement, HTMLElement];
    expect(failed.className).toBe('event failed');
    expect(failed.querySelector('.badge-failed')!.textContent).toBe('Fehlgeschlagen');
    expect(failed.querySelector('.event-where')!.textContent).toBe('15:58 · curl 8.5, 198.51.100.x');
    expect(failed.querySelector('.event-advice')!.textContent).toBe(
      'Waren Sie das nicht? Ändern Sie Ihr Passwort und melden Sie sich überall ab.',
    );
    expect(within(failed).getByRole('link', { name: 'Ändern Sie Ihr Passwort' }).getAttribute('href')).toBe(
      '/settings',
    );
    expect(within(failed).getByRole('link', { name: 'melden Sie sich überall ab' }).getAttribute('href')).toBe(
      '/settings/sessions',
    );
    // The person's own requests turned away: plain words, never a red failure.
    expect(refused.className).toBe('event');
    expect(refused.querySelector('.badge')).toBeNull();
    expect(refused.querySelector('.event-advice')).toBeNull();
    // Three sign-ins from the same device that day: one row with the count, its times inside.
    expect(signIns.querySelector('.event-count')!.textContent).toBe('3-mal');
    const details = signIns.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('Angemeldet3-mal');
    expect([...details.querySelectorAll('.event-times time')].map((t) => t.textContent)).toEqual([
      '13:00',
      '10:00',
      '00:30',
    ]);
    expect(signIns.querySelector('.event-where')!.textContent).toBe(`13:00 · ${FIREFOX}, 203.0.113.x`);
    expect(signIns.querySelector('.event-advice')).toBeNull();

    // Yesterday: a sign-in from a new device, and a right password with no sign-in after it.
    expect(labels(1)).toEqual([
      'Angemeldet',
      'Richtiges Passwort eingegeben, aber die Anmeldung wurde nicht mit dem zweiten Schritt abgeschlossen',
    ]);
    const [fromNew, unfinished] = rowsOf(1) as [HTMLElement, HTMLElement];
    expect(fromNew.querySelector('.badge-new')!.textContent).toBe('Neues Gerät');
    expect(fromNew.querySelector('.event-where')!.textContent).toBe(
      '21:00 · Mobile Safari 17 unter iOS 17.5, 198.51.100.x',
    );
    expect(fromNew.querySelector('.event-advice')).not.toBeNull();
    expect(unfinished.querySelector('.event-advice')).not.toBeNull();
    expect(labels(2)).toEqual(['Anderes Ereignis (something_new)']);
    // The page told the server the browser's zone, for the pages it renders.
    expect(document.cookie).toContain('time_zone=Europe%2FBerlin');

    // Older events join their day: one heading for it.
    await app.user.click(screen.getByRole('link', { name: 'Ältere Aktivität anzeigen' }));
    await screen.findByText('Konto erstellt');
    expect(days()).toEqual(['Heute', 'Gestern', 'Freitag, 6. März']);
    expect(labels(2)).toEqual(['Anderes Ereignis (something_new)', 'Konto erstellt']);
    expect(screen.queryByRole('link', { name: 'Ältere Aktivität anzeigen' })).toBeNull();
    expect(app.api.callsTo('security.activity').map((c) => c.input)).toEqual([{}, { cursor: 'older' }]);
  });

  it('says when nothing has happened yet', async () => {
    renderApp('/settings/activity', {
      ...signedIn,
      'security.activity': () => ({ data: { events: [], nextCursor: null } }),
    });
    await screen.findByText('Nothing has happened yet.');
    expect(document.querySelector('.day-heading')).toBeNull();
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
