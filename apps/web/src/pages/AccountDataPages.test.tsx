import { message, type MessageCode } from '@accounts/validators';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADA, problem, signedInAs, UNAUTHENTICATED, type Reply } from '../test/fake-api';
import { currentPath, findSummary, renderApp } from '../test/render-app';

const signedIn = { 'account.me': (): Reply<'account.me'> => signedInAs(ADA) };
const TOKEN = 'B'.repeat(43);
const NEW_EMAIL = 'ada@new.example';
const IN_A_DAY = new Date(Date.now() + 86400_000).toISOString();
const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
const fieldProblem = (status: number, code: Parameters<typeof problem>[1], field: string, fieldCode: MessageCode) =>
  problem(status, code, { errors: [{ field, code: fieldCode, message: 'x' }] });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the email address page', () => {
  it('is linked from the account page, with the download of one’s data', async () => {
    renderApp('/account', signedIn);
    const profile = await screen.findByRole('region', { name: 'Profile' });
    expect(within(profile).getByRole('link', { name: 'Email address' }).getAttribute('href')).toBe('/settings/email');
    const data = screen.getByRole('region', { name: 'Your data' });
    expect(within(data).getByRole('link', { name: 'Download your data' }).getAttribute('href')).toBe('/settings/data');
  });

  it('shows the current address and the change waiting for its link, which Cancel stops', async () => {
    let pending: { newEmail: string; expiresAt: string } | null = { newEmail: NEW_EMAIL, expiresAt: IN_A_DAY };
    const app = renderApp('/settings/email', {
      'account.me': () => signedInAs({ ...ADA, emailVerified: true }),
      'emailChange.pending': () => ({ data: { pending } }),
      'emailChange.cancel': () => {
        pending = null;
        return { data: { ok: true } };
      },
    });
    expect((await screen.findByText(ADA.email)).className).toBe('account-email');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Email address');
    await screen.findByText(/Confirmed/);
    const what = await screen.findByText(/Your account moves to/);
    expect(what.textContent).toContain(`Your account moves to ${NEW_EMAIL} once the link we sent there is followed.`);
    expect(what.textContent).toContain('The link works until');
    await app.user.click(screen.getByRole('button', { name: 'Cancel the change' }));
    const said = await screen.findByText(`The change was cancelled: the link sent to ${NEW_EMAIL} no longer works.`);
    expect(said.closest('[role=status]')).toBe(document.activeElement);
    expect(screen.queryByRole('button', { name: 'Cancel the change' })).toBeNull();
    expect(app.api.callsTo('emailChange.cancel')).toHaveLength(1);
  });

  it('asks for a change with the new address and the password, and says the same whatever the address', async () => {
    const app = renderApp('/settings/email', {
      ...signedIn,
      'emailChange.pending': () => ({ data: { pending: null } }),
      'emailChange.request': () => ({ data: { ok: true } }),
    });
    const email = await screen.findByLabelText<HTMLInputElement>('New email address');
    expect(email.getAttribute('autocomplete')).toBe('email');
    expect(email.type).toBe('email');
    expect(email.closest('form')!.getAttribute('method')).toBe('post');
    await waitFor(() => expect(app.api.callsTo('emailChange.pending')).toHaveLength(1));

    await app.user.click(screen.getByRole('button', { name: 'Send the confirmation link' }));
    const summary = await findSummary();
    expect(summary.textContent).toContain('Enter the new email address.');
    expect(summary.textContent).toContain('Enter your current password.');
    expect(app.api.callsTo('emailChange.request')).toEqual([]);

    await app.user.type(email, NEW_EMAIL);
    await app.user.type(field('Current password'), 'the password');
    await app.user.click(screen.getByRole('button', { name: 'Send the confirmation link' }));
    const sent = await screen.findByText(/We sent a link to/);
    expect(sent.textContent).toBe(`We sent a link to ${NEW_EMAIL}. Your address changes when you follow it.`);
    expect(sent.closest('[role=status]')).not.toBeNull();
    expect(app.api.callsTo('emailChange.request').map((c) => c.input)).toEqual([
      { new_email: NEW_EMAIL, current_password: 'the password' },
    ]);
    // Nothing on the page tells whether the address was free: the pending change is not asked again.
    expect(app.api.callsTo('emailChange.pending')).toHaveLength(1);
    expect(screen.queryByText(/Your account moves to/)).toBeNull();
    expect(field('New email address').value).toBe('');
    expect(field('Current password').value).toBe('');
  });

  it('says a wrong password and the same address beside their fields, in the page language', async () => {
    let tries = 0;
    const app = renderApp(
      '/settings/email',
      {
        ...signedIn,
        'emailChange.pending': () => ({ data: { pending: null } }),
        'emailChange.request': () =>
          ++tries === 1
            ? fieldProblem(422, 'validation_failed', 'current_password', 'password_incorrect')
            : fieldProblem(422, 'validation_failed', 'new_email', 'email_unchanged'),
      },
      'de',
    );
    await app.user.type(await screen.findByLabelText('Neue E-Mail-Adresse'), ADA.email);
    await app.user.type(field('Aktuelles Passwort'), 'wrong');
    await app.user.click(screen.getByRole('button', { name: 'Bestätigungslink senden' }));
    expect((await findSummary()).textContent).toContain(message('password_incorrect', 'de'));
    await app.user.type(field('Aktuelles Passwort'), 'right');
    await app.user.click(screen.getByRole('button', { name: 'Bestätigungslink senden' }));
    await waitFor(() =>
      expect(document.getElementById('new_email-error')!.textContent).toBe(message('email_unchanged', 'de')),
    );
  });

  it('sends a signed-out visitor (the old address’s “stop the change” link) to sign in and back', async () => {
    renderApp('/settings/email', { 'account.me': () => UNAUTHENTICATED });
    await waitFor(() => expect(currentPath()).toBe('/login?next=%2Fsettings%2Femail'));
  });
});

describe('the confirmation of a new address', () => {
  it('shows the move the link would make, and makes it only with its posted button', async () => {
    const app = renderApp(`/confirm-email-change?token=${TOKEN}`, {
      'emailChange.link': () => ({ data: { newEmail: NEW_EMAIL, realmName: 'Acme Inc' } }),
      'emailChange.confirm': () => ({ data: { ok: true, email: NEW_EMAIL } }),
    });
    expect((await screen.findByText(/Move your account/)).textContent).toBe(
      `Move your account at Acme Inc to ${NEW_EMAIL}?`,
    );
    await waitFor(() => expect(currentPath()).toBe('/confirm-email-change'));
    expect(app.api.callsTo('emailChange.link').map((c) => c.input)).toEqual([{ token: TOKEN }]);
    expect(app.api.callsTo('emailChange.confirm')).toEqual([]);
    const button = screen.getByRole('button', { name: 'Move my account to this address' });
    expect(button.closest('form')!.getAttribute('method')).toBe('post');
    await app.user.click(button);
    expect((await screen.findByText(/Your email address is now/)).textContent).toBe(
      `Your email address is now ${NEW_EMAIL}.`,
    );
    expect(app.api.callsTo('emailChange.confirm').map((c) => c.input)).toEqual([{ token: TOKEN }]);
  });

  it('a used or cancelled link says so, without a button', async () => {
    const app = renderApp(`/confirm-email-change?token=${TOKEN}`, {
      'emailChange.link': () => fieldProblem(400, 'email_change_token_invalid', 'token', 'email_change_token_invalid'),
    });
    expect(await screen.findByText(/This link did not work/)).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
    expect(app.api.callsTo('emailChange.confirm')).toEqual([]);
  });

  it('an address another account took meanwhile: nothing changed, and another change is offered', async () => {
    const app = renderApp(
      `/confirm-email-change?token=${TOKEN}`,
      {
        'emailChange.link': () => ({ data: { newEmail: NEW_EMAIL, realmName: 'Acme Inc' } }),
        'emailChange.confirm': () => fieldProblem(409, 'email_taken', 'token', 'email_taken'),
      },
      'fr',
    );
    await app.user.click(await screen.findByRole('button', { name: 'Passer mon compte à cette adresse' }));
    expect((await screen.findByText(/appartient désormais/)).textContent).toBe(
      `${NEW_EMAIL} appartient désormais à un autre compte ici\u00a0: votre adresse n’a donc pas été changée.`,
    );
    expect(screen.getByRole('link', { name: 'Demander un autre changement' }).getAttribute('href')).toBe(
      '/settings/email',
    );
    expect(screen.queryByRole('button', { name: 'Passer mon compte à cette adresse' })).toBeNull();
  });

  it('a limit or the service’s trouble is said, and the button stays', async () => {
    const app = renderApp(`/confirm-email-change?token=${TOKEN}`, {
      'emailChange.link': () => ({ data: { newEmail: NEW_EMAIL, realmName: 'Acme Inc' } }),
      'emailChange.confirm': () => problem(429, 'rate_limited', { retryAfter: 120 }),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Move my account to this address' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Too many requests');
    expect(screen.getByRole('button', { name: 'Move my account to this address' })).toBeTruthy();
  });

  it('without a token, says the page needs the mailed link', async () => {
    const app = renderApp('/confirm-email-change');
    expect(await screen.findByText('This page needs the link from the mail we sent you.')).toBeTruthy();
    expect(app.api.callsTo('emailChange.link')).toEqual([]);
  });
});

/** The files the page hands the browser: their names and contents. */
function catchDownloads() {
  const files: { name: string; blob: Blob }[] = [];
  let last: Blob | null = null;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    last = blob as Blob;
    return 'blob:fake';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (this.href === 'blob:fake' && last) files.push({ name: this.download, blob: last });
  });
  return files;
}

const COPY: Extract<Reply<'accountData.export'>, { data: unknown }>['data'] = {
  format: 'accounts-export/1',
  exportedAt: '2026-11-27T23:30:00.000Z',
  realm: { slug: 'acme', name: 'Acme Inc' },
  account: {
    id: '6f1c2a8e-4b7d-4c8a-9e2f-1a3b5c7d9e0f',
    name: ADA.name,
    email: ADA.email,
    emailVerifiedAt: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    passwordChangedAt: '2026-11-01T10:00:00.000Z',
    locale: 'en',
    twoStep: false,
    secondFactorSuggestionDismissedAt: null,
  },
  pendingEmailChange: null,
  sessions: [],
  knownDevices: [],
  events: [],
  mails: [],
  secondFactors: { authenticatorApp: null, passkeys: [], recoveryCodes: { left: 0, used: 0, issuedAt: null } },
};

describe('the download of one’s data', () => {
  it('says what the file holds, asks for the password when the server wants it again, and saves the JSON', async () => {
    const downloads = catchDownloads();
    const app = renderApp('/settings/data', {
      ...signedIn,
      'accountData.export': (input) => {
        const password = (input as { current_password?: string }).current_password;
        if (password === undefined)
          return fieldProblem(422, 'validation_failed', 'current_password', 'password_recheck_required');
        if (password !== 'the right one')
          return fieldProblem(422, 'validation_failed', 'current_password', 'password_incorrect');
        return { data: COPY };
      },
    });
    await screen.findByText(/It never contains a password, a code or a key/);
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^your account: name, email address/)]),
    );
    expect(screen.queryByLabelText('Current password')).toBeNull();
    await app.user.click(screen.getByRole('button', { name: 'Download your data' }));
    // Asked, not refused: the field appears with focus, nothing marked wrong.
    const password = await screen.findByLabelText('Current password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    expect(document.querySelector('.error-summary')).toBeNull();
    expect(screen.getByText('For your security, enter your current password to download your data.')).toBeTruthy();
    expect(downloads).toEqual([]);

    await app.user.type(password, 'a wrong one');
    await app.user.click(screen.getByRole('button', { name: 'Download your data' }));
    expect((await findSummary()).textContent).toContain(message('password_incorrect', 'en'));
    await app.user.clear(password);
    await app.user.type(password, 'the right one');
    await app.user.click(screen.getByRole('button', { name: 'Download your data' }));
    expect((await screen.findByText(/Your data was downloaded/)).textContent).toBe(
      'Your data was downloaded as account-acme-2026-11-27.json.',
    );
    expect(downloads.map((d) => d.name)).toEqual(['account-acme-2026-11-27.json']);
    expect(downloads[0]!.blob.type).toBe('application/json');
    expect(JSON.parse(await downloads[0]!.blob.text())).toEqual(COPY);
    expect(app.api.callsTo('accountData.export').map((c) => c.input)).toEqual([
      {},
      { current_password: 'a wrong one' },
      { current_password: 'the right one' },
    ]);
    // Proved for a few minutes: the field is gone.
    expect(screen.queryByLabelText('Current password')).toBeNull();
  });

  it('downloads at once when the session proved its password lately', async () => {
    const downloads = catchDownloads();
    const app = renderApp('/settings/data', { ...signedIn, 'accountData.export': () => ({ data: COPY }) }, 'de');
    await app.user.click(await screen.findByRole('button', { name: 'Ihre Daten herunterladen' }));
    await screen.findByText('Ihre Daten wurden als account-acme-2026-11-27.json heruntergeladen.');
    expect(downloads).toHaveLength(1);
  });
});

describe('the activity of a change of address and a copy', () => {
  it('names the new events in the page language', async () => {
    const at = new Date().toISOString();
    const event = (id: string, type: string) => ({
      id,
      at,
      type,
      device: null,
      address: null,
      failed: false,
      app: null,
    });
    renderApp(
      '/settings/activity',
      {
        ...signedIn,
        'security.activity': () => ({
          data: {
            events: [
              event('1', 'email_change_requested'),
              event('2', 'email_change_cancelled'),
              event('3', 'email_changed'),
              event('4', 'data_exported'),
            ],
            nextCursor: null,
          },
        }),
      },
      'fr',
    );
    await screen.findByText('Changement d’adresse e-mail demandé');
    for (const label of [
      'Changement d’adresse e-mail annulé',
      'Adresse e-mail changée',
      'Copie de vos données téléchargée',
    ])
      expect(screen.getByText(label)).toBeTruthy();
  });
});
