import { message } from '@accounts/validators';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, deferred, problem, signedInAs, type Handlers, type Reply } from '../../test/fake-api';
import { currentPath, renderApp } from '../../test/render-app';

const CURRENT = 'violet tractor sings at midnight';
const NEXT = 'quiet harbor lanterns drifting east';
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

/** Puts a whole value into a field at once, as a password manager does (one estimate, not one per key). */
async function enter(user: ReturnType<typeof renderApp>['user'], label: string, value: string) {
  await user.click(field(label));
  await user.paste(value);
}
const signedIn = { 'account.me': (): Reply<'account.me'> => signedInAs(ADA) };

async function openSettings(handlers: Handlers = {}) {
  const app = renderApp('/settings', { ...signedIn, ...handlers });
  await screen.findByLabelText('Current password');
  return app;
}

async function fill(app: ReturnType<typeof renderApp>, current: string, next: string, confirm = next) {
  await enter(app.user, 'Current password', current);
  await enter(app.user, 'New password', next);
  await enter(app.user, 'Confirm new password', confirm);
}

describe('settings page (change password)', () => {
  it('says nothing of a field as it is left; the submit says what is wrong', async () => {
    const app = await openSettings();
    await enter(app.user, 'New password', 'too short');
    await app.user.tab();
    expect(field('New password').getAttribute('aria-invalid')).toBeNull();
    expect(document.getElementById('new_password-error')?.textContent).toBe('');
    await app.user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(field('New password').getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('new_password-error')?.textContent).toBe(
      message('password_too_short', 'en', { min: 15 }),
    );
    expect(app.api.callsTo('account.changePassword')).toHaveLength(0);
  });

  it('uses current-password and new-password autocomplete', async () => {
    await openSettings();
    expect(field('Current password').autocomplete).toBe('current-password');
    expect(field('New password').autocomplete).toBe('new-password');
    expect(field('Confirm new password').autocomplete).toBe('new-password');
  });

  it('goes to the account page after the change, which confirms it and says how many devices were signed out', async () => {
    const pending = deferred<Reply<'account.changePassword'>>();
    const app = await openSettings({ 'account.changePassword': () => pending.promise });
    await fill(app, CURRENT, NEXT);
    const asked = app.api.callsTo('account.me').length;
    await app.user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(screen.getByRole('button', { name: 'Changing password…' }).hasAttribute('disabled')).toBe(true);
    expect(app.api.callsTo('account.changePassword')[0]!.input).toEqual({
      current_password: CURRENT,
      new_password: NEXT,
      confirm_password: NEXT,
    });

    pending.resolve({ data: { ok: true, otherSessionsRevoked: 2 } });
    // The hub's code loads on its own (a "Loading…" status meanwhile): then its confirmation.
    const status = (await screen.findByText('Your password has been changed. You are still signed in on this device.'))
      .parentElement!;
    expect(status.getAttribute('role')).toBe('status');
    expect(status.textContent).toContain('Your password has been changed. You are still signed in on this device.');
    expect(status.textContent).toContain('2 other devices were signed out.');
    await waitFor(() => expect(document.activeElement).toBe(status));
    expect(currentPath()).toBe('/account');
    // The hub says when the password last changed: account.me is asked again.
    await waitFor(() => expect(app.api.callsTo('account.me').length).toBeGreaterThan(asked));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Your account');
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('checks the new password against the account before sending', async () => {
    const app = await openSettings();
    await fill(app, CURRENT, CURRENT, 'something else entirely');
    await app.user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(document.getElementById('new_password-error')?.textContent).toBe(message('password_unchanged', 'en'));
    expect(document.getElementById('confirm_password-error')?.textContent).toBe(message('password_mismatch', 'en'));
    // Words from the account's name are off limits too.
    await app.user.clear(field('New password'));
    await enter(app.user, 'New password', 'ada lovelace babbage');
    await waitFor(() =>
      expect(document.getElementById('new_password-error')?.textContent).toBe(message('password_too_similar', 'en')),
    );
    expect(app.api.callsTo('account.changePassword')).toHaveLength(0);
  });

  it('shows a wrong current password next to that field', async () => {
    const app = await openSettings({
      'account.changePassword': () =>
        problem(422, 'validation_failed', {
          errors: [{ field: 'current_password', code: 'password_incorrect', message: 'x' }],
        }),
    });
    await fill(app, 'not my password at all', NEXT);
    await app.user.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() =>
      expect(document.getElementById('current_password-error')?.textContent).toBe(message('password_incorrect', 'en')),
    );
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('sends the user to sign in again when the session ended meanwhile', async () => {
    let sessionAlive = true;
    const app = await openSettings({
      'account.me': (): Reply<'account.me'> => (sessionAlive ? signedInAs(ADA) : problem(401, 'unauthenticated')),
      'account.changePassword': () => {
        sessionAlive = false;
        return problem(401, 'unauthenticated');
      },
    });
    await fill(app, CURRENT, NEXT);
    await app.user.click(screen.getByRole('button', { name: 'Change password' }));
    await screen.findByText('You were signed out. Sign in again to change your password.');
    expect(currentPath()).toBe('/login?next=%2Fsettings&expired=1');
  });
});
