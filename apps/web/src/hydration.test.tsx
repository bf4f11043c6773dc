import { act, fireEvent, waitFor } from '@testing-library/react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { renderDocument, renderPage, type PageData } from './entry-server';
import type { FormOutcome, QueryCall } from './page-data';
import { absoluteTime, TimeAgo } from './relative-time';
import { Root } from './Root';
import { ADA, ACME_SETTINGS, DEFAULT_SETTINGS, fakeApi, SECURITY, signedInAs, type Handlers } from './test/fake-api';
import {
  ANSWERS,
  CODES,
  LAPTOP,
  SETUP,
  signedIn as signedInEn,
  signedOut as signedOutEn,
  TOKEN,
  twoStepOn,
} from './test/page-answers';
import { PAGES } from './test/pages';

// The browser's side of a rendered page: the app takes over the server's HTML for every page,
// signed in or not, without a mismatch (React reports each one, then draws the page again), and
// its controls come to life once it has.

async function hydrate(href: string, data: PageData, { html }: { html: string } = { html: '' }) {
  if (!html) ({ html } = await renderPage(href, data));
  window.history.replaceState(null, '', href);
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  const mismatches: unknown[] = [];
  const api = fakeApi({
    ...ANSWERED,
    'account.me': () =>
      data.user
        ? signedInAs(data.user, data.twoStep, data.security)
        : { problem: { status: 401, code: 'unauthenticated' } },
  });
  // The callbacks return a promise so that act takes its async form, which lets the work React
  // queues (the page's data, lazy pages) settle before it resolves.
  const root = await act(() =>
    Promise.resolve(
      hydrateRoot(container, <Root locale={data.locale} data={data} fetchImpl={api.fetch} />, {
        onRecoverableError: (error) => mismatches.push(error),
      }),
    ),
  );
  const unmount = async () => {
    await act(() => Promise.resolve(root.unmount()));
    container.remove();
  };
  return { container, mismatches, unmount, api };
}

/** The page's own queries, answered by the fake API as the gateway answered them for the render. */
const ANSWERED = Object.fromEntries(
  Object.entries(ANSWERS).map(([path, data]) => [path, () => ({ data })]),
) as Handlers;

/** A page as the gateway sends it: its queries asked with it, its HTML and data as the browser gets them. */
async function served(href: string, data: PageData, call: QueryCall = (path) => Promise.resolve(ANSWERS[path])) {
  const document = await renderDocument('<title></title><div id="root"></div>', href, data, call);
  if (!('html' in document)) throw new Error(`${href}: a redirect to ${document.redirect}`);
  const [, html, json] =
    /<div id="root">(.*)<\/div><script id="page-data" type="application\/json">(.*)<\/script>/s.exec(document.html)!;
  return { html: html!, data: JSON.parse(json!) as PageData };
}

const signedOut: PageData = { locale: 'en', settings: DEFAULT_SETTINGS, user: null };
const signedIn: PageData = { locale: 'fr', settings: ACME_SETTINGS, user: { ...ADA, emailVerified: true } };

describe('hydration of the server render', () => {
  it('keeps the server\'s words and title for a time, without formatting it again ("now" → "1 minute ago")', async () => {
    const at = new Date('2026-11-26T10:00:00Z');
    const clock = vi.spyOn(Date, 'now').mockReturnValue(at.getTime() + 59_000);
    const formats = vi.spyOn(Intl.RelativeTimeFormat.prototype, 'format');
    const container = document.createElement('div');
    // Rendered as the server does, where there is no window.
    vi.stubGlobal('window', undefined);
    container.innerHTML = renderToString(<TimeAgo at={at} locale="en" />);
    vi.unstubAllGlobals();
    expect(formats).toHaveBeenCalledTimes(1);
    clock.mockReturnValue(at.getTime() + 61_000);
    const mismatches: unknown[] = [];
    const root = await act(() =>
      Promise.resolve(
        hydrateRoot(container, <TimeAgo at={at} locale="en" />, { onRecoverableError: (e) => mismatches.push(e) }),
      ),
    );
    expect(mismatches).toEqual([]);
    expect(container.textContent).toBe('now');
    expect(container.querySelector('time')!.title).toBe(absoluteTime(at, 'en'));
    expect(formats).toHaveBeenCalledTimes(1);
    // A new time (the list fetched again) is the browser's to say.
    const later = new Date(at.getTime() + 60_000);
    await act(() => Promise.resolve(root.render(<TimeAgo at={later} locale="en" />)));
    expect(container.textContent).toBe('now');
    await act(() => Promise.resolve(root.render(<TimeAgo at={at} locale="en" />)));
    expect(container.textContent).toBe('1 minute ago');
    await act(() => Promise.resolve(root.unmount()));
    formats.mockRestore();
    clock.mockRestore();
  });

  it('gives a time drawn in the browser its title once it is pointed at', async () => {
    const container = document.createElement('div');
    const root = createRoot(container);
    await act(() => Promise.resolve(root.render(<TimeAgo at="2026-11-26T10:00:00Z" locale="de" />)));
    const time = container.querySelector('time')!;
    expect(time.title).toBe('');
    fireEvent.pointerEnter(time);
    expect(time.title).toBe(absoluteTime('2026-11-26T10:00:00Z', 'de'));
    expect(time.title).toMatch(/^26\. November 2026 um \d\d:00$/);
    await act(() => Promise.resolve(root.unmount()));
  });

  it('takes over every page without a mismatch', async () => {
    for (const data of [signedOut, signedIn]) {
      for (const href of PAGES) {
        const { mismatches, unmount } = await hydrate(href, data);
        // Lazy pages hydrate once their code has loaded.
        await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
        expect(mismatches, `${href} ${data.user ? 'signed in' : 'signed out'}`).toEqual([]);
        await unmount();
      }
    }
  });

  it('never keeps the inputs read-only or the submit disabled waiting for the app', async () => {
    const { html } = await renderPage('/register', signedOut);
    expect(html).not.toMatch(/readonly/i);
    expect(html).not.toMatch(/<button [^>]*disabled/);
    const { container, unmount } = await hydrate('/register', signedOut);
    await waitFor(() => {
      expect(container.querySelector('#name')!.hasAttribute('readonly')).toBe(false);
      expect(container.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled).toBe(false);
    });
    expect(container.querySelector('h1')!.textContent).toBe('Create your account');
    await unmount();
  });

  it('takes over a page rendered with what a form posted without scripts came to, without a mismatch', async () => {
    const refused = (status: number, errors: [string, string][]): NonNullable<FormOutcome['problem']> => ({
      type: 'about:blank',
      title: 'refused',
      status,
      code: 'validation_failed',
      errors: errors.map(([field, code]) => ({ field, code, message: code })) as never,
    });
    const posted = (data: PageData, form: string, outcome: Omit<FormOutcome, 'form'>): PageData => ({
      ...data,
      form: { form, ...outcome },
    });
    const CASES: [string, PageData][] = [
      [
        '/register',
        posted(signedOutEn, 'register', {
          values: { name: 'Ada Lovelace', email: ADA.email },
          problem: refused(422, [
            ['email', 'email_taken'],
            ['password2', 'password_mismatch'],
          ]),
        }),
      ],
      [
        '/login?next=%2Fsettings',
        posted(signedOutEn, 'signIn', {
          values: { email: ADA.email },
          problem: { ...refused(401, []), code: 'second_factor_required', methods: ['totp', 'recovery_code'] },
        }),
      ],
      [
        '/login',
        posted(signedOutEn, 'secondStep', {
          values: { email: ADA.email, methods: 'totp recovery_code' },
          problem: refused(422, [['code', 'code_incorrect']]),
        }),
      ],
      ['/forgot-password', posted(signedOutEn, 'forgotPassword', { values: { email: ADA.email }, result: {} })],
      [
        '/forgot-password',
        posted(signedOutEn, 'forgotPassword', { values: { email: ADA.email }, result: { ok: true, retryAfter: 540 } }),
      ],
      [
        `/reset-password?token=${TOKEN}`,
        posted(signedOutEn, 'resetPassword', {
          values: {},
          problem: refused(422, [['confirm_password', 'password_mismatch']]),
        }),
      ],
      [`/verify-email?token=${TOKEN}`, posted(signedOutEn, 'verifyEmail', { values: {}, result: {} })],
      ['/account', posted(signedInEn, 'resendVerification', { values: {}, result: { alreadyVerified: false } })],
      [
        '/settings/name',
        posted(signedInEn, 'changeName', { values: { name: 'x' }, problem: refused(422, [['name', 'name_too_long']]) }),
      ],
      [
        '/settings/email',
        posted(signedInEn, 'requestEmailChange', { values: { new_email: 'new@example.com' }, result: { ok: true } }),
      ],
      [
        '/settings/sessions?end=s-2',
        posted(signedInEn, 'revokeSession', {
          values: { session_id: 's-2' },
          problem: refused(422, [['current_password', 'password_incorrect']]),
        }),
      ],
      ['/settings/sessions', posted(signedInEn, 'revokeOtherSessions', { values: {}, result: { revoked: 1 } })],
      ['/settings/activity?cursor=older', signedInEn],
      ['/settings/two-step', posted(signedInEn, 'setupTotp', { values: {}, result: SETUP })],
      [
        '/settings/two-step',
        posted(signedInEn, 'enableTotp', { values: {}, problem: refused(422, [['code', 'code_incorrect']]) }),
      ],
      ['/settings/two-step', posted(twoStepOn, 'enableTotp', { values: {}, result: { recoveryCodes: CODES } })],
      ['/settings/two-step?open=off', posted(signedInEn, 'disableTotp', { values: {}, result: { ok: true } })],
      [
        `/settings/passkeys?rename=${LAPTOP.id}`,
        posted(signedInEn, 'renamePasskey', {
          values: { passkey_id: LAPTOP.id, name: '' },
          problem: refused(422, [['name', 'required']]),
        }),
      ],
      [
        '/settings/data',
        posted(signedInEn, 'exportData', {
          values: {},
          problem: refused(422, [['current_password', 'password_recheck_required']]),
        }),
      ],
      ['/settings/delete', posted(signedOutEn, 'deleteAccount', { values: {}, result: { ok: true } })],
      // The account page just after registering, after a recovery code, and after its own forms.
      ['/account', { ...signedInEn, state: { registered: true } }],
      ['/account?notice=recovery_code_used', twoStepOn],
      [
        '/account',
        posted(signedInEn, 'resendVerification', {
          values: { notice: 'registered' },
          result: { ok: true, alreadyVerified: false },
        }),
      ],
      [
        '/account',
        posted({ ...signedInEn, security: SECURITY }, 'dismissSecondFactorSuggestion', {
          values: {},
          result: { ok: true },
        }),
      ],
    ];
    for (const [href, input] of CASES) {
      const { html, data } = await served(href, input);
      const { mismatches, unmount } = await hydrate(href, data, { html });
      await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
      expect(mismatches, `${href} ${input.form?.form ?? ''}`).toEqual([]);
      await unmount();
    }
  });

  it('takes over a mailed link that no longer works as the server found it, without asking again', async () => {
    const CASES = [
      [`/verify-email?token=${TOKEN}`, 'email.verificationLink', 'verify_token_invalid', '.verify-failed'],
      [`/confirm-email-change?token=${TOKEN}`, 'emailChange.link', 'email_change_token_invalid', '.change-failed'],
    ] as const;
    for (const [href, procedure, code, failed] of CASES) {
      // The gateway's caller rejects with the API's ProblemError, which names its problem.
      const refuse: QueryCall = (path) =>
        path === procedure ? Promise.reject(Object.assign(new Error(code), { problem: code })) : Promise.resolve(null);
      const { html, data } = await served(href, signedOutEn, refuse);
      expect(html, href).toContain(failed.slice(1));
      const { container, mismatches, unmount, api } = await hydrate(href, data, { html });
      await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
      expect(mismatches, href).toEqual([]);
      expect(container.querySelector(failed), href).not.toBeNull();
      expect(api.callsTo(procedure), href).toEqual([]);
      await unmount();
    }
  });
});
