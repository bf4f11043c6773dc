// @vitest-environment node
import { readFileSync } from 'node:fs';
import { message, type MessageCode } from '@accounts/validators';
import { describe, expect, it } from 'vitest';
import { renderDocument, type PageData } from './entry-server';
import type { FormOutcome, QueryCall } from './page-data';
import { PAGE_FORMS, type PageFormName } from './page-forms';
import { PAGE_REGISTRY } from './pages/registry';
import { ADA, SECURITY } from './test/fake-api';
import { ANSWERS, CODES, LAPTOP, SETUP, signedIn, signedOut, TOKEN, twoStepOn, withPasskey } from './test/page-answers';
import type { Problem } from './trpc';

// Every page's forms as the gateway renders them for a browser without scripts: real forms
// posted to the page's own address, each named (`_form`) by its row of PAGE_FORMS, and the page
// rendered with what a post came to (PageData.form): what was wrong beside the fields with what
// was entered kept (never a password), or the result shown in place.

const indexHtml = readFileSync(new URL('../index.html', import.meta.url), 'utf8');
const PASSWORD = 'correct horse battery staple';
const WAIT_A_MINUTE = message('rate_limited', 'en', { retryAfter: 60 });

const answering =
  (answers: Record<string, unknown> = {}): QueryCall =>
  (path) => {
    const all = { ...ANSWERS, ...answers };
    if (!(path in all)) return Promise.reject(new Error(`no answer for ${path}`));
    return Promise.resolve(all[path]);
  };

/** The document the gateway sends for `href` (its queries answered), or the redirect it answers with. */
async function page(href: string, data: PageData, answers?: Record<string, unknown>) {
  const document = await renderDocument(indexHtml, href, data, answering(answers));
  return 'html' in document ? document.html : document;
}

async function html(href: string, data: PageData, answers?: Record<string, unknown>): Promise<string> {
  const document = await page(href, data, answers);
  if (typeof document !== 'string') throw new Error(`${href}: a redirect to ${document.redirect}`);
  return document;
}

const unescape = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
const attr = (tag: string, name: string) => {
  const value = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tag)?.[1];
  return value === undefined ? null : unescape(value);
};

interface RenderedForm {
  action: string | null;
  method: string | null;
  /** Its `_form` field, the first thing in it (PostForm); null for a form without. */
  name: string | null;
  /** Its hidden fields besides `_form`. */
  hidden: Record<string, string>;
}

/** The forms of a rendered document (the page's `#root` only, not its data). */
function formsOf(document: string): RenderedForm[] {
  const root = document.slice(0, document.indexOf('<script id="page-data"'));
  return [...root.matchAll(/<form ([^>]*)>(.*?)<\/form>/gs)].map(([, tag, body]) => {
    const hidden = [...body!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/>/g)].map(
      ([, name, value]) => [name!, unescape(value!)] as const,
    );
    const first = /^<input type="hidden" name="_form" value="([^"]*)"\/>/.exec(body!);
    return {
      action: attr(tag!, 'action'),
      method: attr(tag!, 'method'),
      name: first?.[1] ?? null,
      hidden: Object.fromEntries(hidden.filter(([name]) => name !== '_form')),
    };
  });
}

/** An input's value in the rendered page, by its id (null: no such input). */
function inputValue(document: string, id: string): string | null {
  const tag = new RegExp(`<input [^>]*id="${id}"[^>]*>`).exec(document)?.[0];
  return tag ? (attr(tag, 'value') ?? '') : null;
}

/** The values of the page's password inputs: all empty, whatever was posted. */
const passwordValues = (document: string) =>
  [...document.matchAll(/<input [^>]*type="password"[^>]*>/g)].map(([tag]) => attr(tag, 'value') ?? '');

const problem = (status: number, code: Problem['code'], extra: Partial<Problem> = {}): Problem => ({
  type: 'about:blank',
  title: code,
  status,
  code,
  ...extra,
});
const fieldProblem = (...errors: [field: string, code: MessageCode][]) =>
  problem(422, 'validation_failed', { errors: errors.map(([field, code]) => ({ field, code, message: code })) });
const posted = (data: PageData, form: PageFormName, outcome: Omit<FormOutcome, 'form'>): PageData => ({
  ...data,
  form: { form, ...outcome },
});

/**
 * Pages in the states that show each form: every page signed in and out, and the steps a link
 * opens (a confirm step, a form) or a post leads to (the second step of a sign-in, a set-up).
 */
const SCENARIOS: [href: string, data: PageData][] = [
  ...PAGE_REGISTRY.flatMap((entry) =>
    [signedOut, signedIn].map(
      (data) => [entry.linkToken ? `${entry.path}?token=${TOKEN}` : entry.path, data] as [string, PageData],
    ),
  ),
  [
    '/login',
    posted(signedOut, 'signIn', {
      values: { email: ADA.email },
      problem: problem(401, 'second_factor_required', { methods: ['totp', 'recovery_code'] }),
    }),
  ],
  ['/settings/sessions?end=s-2', signedIn],
  ['/settings/sessions?end=others', signedIn],
  ['/settings/two-step', posted(signedIn, 'setupTotp', { values: {}, result: SETUP })],
  ['/settings/two-step?open=off', twoStepOn],
  ['/settings/two-step?open=codes', twoStepOn],
  [`/settings/passkeys?rename=${LAPTOP.id}`, signedIn],
  [`/settings/passkeys?remove=${LAPTOP.id}`, signedIn],
];

describe('the forms of every page, without scripts', () => {
  it('are posted to the page itself, each named by a form of PAGE_FORMS that the page has; and every such form is on its pages', async () => {
    const seen = new Set<string>();
    // The pages behind mailed links, once more with a link that no longer works: their forms for a new one.
    const stale = { 'email.checkLink': { state: 'used', email: 'ada@example.com' } };
    const scenarios: [string, PageData, Record<string, unknown>?][] = [
      ...SCENARIOS,
      [`/reset-password?token=${TOKEN}`, signedOut, stale],
      [`/verify-email?token=${TOKEN}`, signedIn, stale],
    ];
    for (const [href, data, answers] of scenarios) {
      const document = await page(href, data, answers);
      if (typeof document !== 'string') continue; // a signed-in page asked by nobody, or the other way
      const path = new URL(href, 'http://local').pathname;
      for (const form of formsOf(document)) {
        // Connecting an account goes on at the provider: the gateway's own route answers it with a redirect.
        if (form.action === '/users/connections/connect') continue;
        const where = `${href} (${data.user ? 'signed in' : 'signed out'}): ${form.name}`;
        expect(form.method, where).toBe('post');
        expect(form.action, where).toBe(href);
        expect(form.name, where).not.toBeNull();
        expect(Object.keys(PAGE_FORMS), where).toContain(form.name);
        const { pages } = PAGE_FORMS[form.name as PageFormName];
        if (pages !== '*') expect(pages, where).toContain(path);
        seen.add(`${form.name} ${pages === '*' ? '*' : path}`);
      }
    }
    const expected = Object.entries(PAGE_FORMS).flatMap(([name, { pages }]) =>
      pages === '*' ? [`${name} *`] : pages.map((path) => `${name} ${path}`),
    );
    expect([...seen].sort()).toEqual(expected.sort());
  });

  it('carry what the person does not type: the mailed link, the session or passkey concerned', async () => {
    const hiddenOf = async (href: string, data: PageData, name: PageFormName) =>
      formsOf(await html(href, data)).find((form) => form.name === name)?.hidden;
    expect(await hiddenOf(`/reset-password?token=${TOKEN}`, signedOut, 'resetPassword')).toEqual({ token: TOKEN });
    expect(await hiddenOf(`/verify-email?token=${TOKEN}`, signedOut, 'verifyEmail')).toEqual({ token: TOKEN });
    expect(await hiddenOf(`/confirm-email-change?token=${TOKEN}`, signedOut, 'confirmEmailChange')).toEqual({
      token: TOKEN,
    });
    expect(await hiddenOf('/settings/sessions?end=s-2', signedIn, 'revokeSession')).toEqual({ session_id: 's-2' });
    expect(await hiddenOf(`/settings/passkeys?rename=${LAPTOP.id}`, signedIn, 'renamePasskey')).toEqual({
      passkey_id: LAPTOP.id,
    });
    expect(await hiddenOf(`/settings/passkeys?remove=${LAPTOP.id}`, signedIn, 'removePasskey')).toEqual({
      passkey_id: LAPTOP.id,
      name: LAPTOP.name,
    });
  });

  it('open each step with a link to the page with the step in its query, and close it with one to the page', async () => {
    const sessions = await html('/settings/sessions', signedIn);
    expect(sessions).toContain('href="/settings/sessions?end=s-2"');
    expect(sessions).toContain('href="/settings/sessions?end=others"');
    const confirm = await html('/settings/sessions?end=s-2', signedIn);
    expect(confirm).toContain('Enter your current password to sign out Mobile Safari 17.');
    expect(confirm).toMatch(/<a href="\/settings\/sessions" class="secondary button-link">Cancel<\/a>/);

    const twoStep = await html('/settings/two-step', twoStepOn);
    expect(twoStep).toContain('href="/settings/two-step?open=off"');
    expect(twoStep).toContain('href="/settings/two-step?open=codes"');
    expect(formsOf(twoStep).map((form) => form.name)).toEqual(['signOut']);

    const passkeys = await html('/settings/passkeys', signedIn);
    expect(passkeys).toContain(`href="/settings/passkeys?rename=${LAPTOP.id}"`);
    expect(passkeys).toContain(`href="/settings/passkeys?remove=${LAPTOP.id}"`);
    // Making a passkey is a script API: not offered without scripts, and the page says why.
    expect(passkeys).not.toContain('passkey-add');
    expect(passkeys).toContain('Adding a passkey needs JavaScript');

    const activity = await html('/settings/activity', signedIn);
    expect(activity).toContain('href="/settings/activity?cursor=older"');
  });

  it('render the page of older activity from its cursor', async () => {
    const asked: unknown[] = [];
    const document = await renderDocument(indexHtml, '/settings/activity?cursor=older', signedIn, (_path, input) => {
      asked.push(input);
      return Promise.resolve({ events: [], nextCursor: null });
    });
    expect(asked).toEqual([{ cursor: 'older' }]);
    expect('html' in document && document.html).not.toContain('Show older activity');
  });
});

/** A refusal, what it shows, and the values it keeps by input id. */
interface Refusal {
  form: PageFormName;
  href: string;
  data: PageData;
  values?: Record<string, string>;
  problem: Problem;
  /** Said in the page (the summary, an alert or the page's notice). */
  says: string[];
  kept?: Record<string, string>;
}

const REFUSALS: Refusal[] = [
  {
    form: 'register',
    href: '/register',
    data: signedOut,
    values: { name: 'Ada Lovelace', email: ADA.email },
    problem: fieldProblem(['password2', 'password_mismatch']),
    says: ['Confirm password: The passwords do not match.'],
    kept: { name: 'Ada Lovelace', email: ADA.email },
  },
  {
    form: 'signIn',
    href: '/login',
    data: signedOut,
    values: { email: 'ada@' },
    problem: fieldProblem(['email', 'invalid_email']),
    says: ['Email address: Enter a valid email address.'],
    kept: { email: 'ada@' },
  },
  {
    form: 'secondStep',
    href: '/login',
    data: signedOut,
    values: { email: ADA.email, methods: 'totp recovery_code' },
    problem: fieldProblem(['code', 'code_incorrect']),
    says: ['This code is not correct, or it was already used.'],
    kept: { code: '' },
  },
  {
    form: 'forgotPassword',
    href: '/forgot-password',
    data: signedOut,
    values: { email: 'ada@' },
    problem: fieldProblem(['email', 'invalid_email']),
    says: ['Enter a valid email address.'],
    kept: { email: 'ada@' },
  },
  {
    form: 'resetPassword',
    href: `/reset-password?token=${TOKEN}`,
    data: signedOut,
    problem: fieldProblem(['confirm_password', 'password_mismatch']),
    says: ['The passwords do not match.'],
  },
  {
    form: 'verifyEmail',
    href: `/verify-email?token=${TOKEN}`,
    data: signedOut,
    problem: fieldProblem(['token', 'verify_token_invalid']),
    says: ['This link did not work'],
  },
  {
    form: 'confirmEmailChange',
    href: `/confirm-email-change?token=${TOKEN}`,
    data: signedOut,
    problem: problem(429, 'rate_limited', { retryAfter: 60 }),
    says: [WAIT_A_MINUTE],
  },
  {
    form: 'resendVerification',
    href: '/account',
    data: signedIn,
    problem: problem(429, 'rate_limited', { retryAfter: 60 }),
    says: [WAIT_A_MINUTE],
  },
  {
    // The registration notice's own "Send it again": said in that notice, which stays.
    form: 'resendVerification',
    href: '/account',
    data: signedIn,
    values: { notice: 'registered' },
    problem: problem(429, 'rate_limited', { retryAfter: 60 }),
    says: [WAIT_A_MINUTE, 'Send it again', 'Wrong address?'],
  },
  {
    form: 'dismissSecondFactorSuggestion',
    href: '/account',
    data: signedIn,
    problem: problem(429, 'rate_limited', { retryAfter: 60 }),
    says: [WAIT_A_MINUTE, 'Add a passkey or turn on two-step sign-in', 'Dismiss this suggestion'],
  },
  {
    form: 'changePassword',
    href: '/settings',
    data: signedIn,
    problem: fieldProblem(['confirm_password', 'password_mismatch']),
    says: ['The passwords do not match.'],
  },
  {
    form: 'changeName',
    href: '/settings/name',
    data: signedIn,
    values: { name: 'Ada\u0007' },
    problem: fieldProblem(['name', 'name_invalid_chars']),
    says: ['The name must not contain control, formatting or invisible characters.'],
    kept: { name: 'Ada\u0007' },
  },
  {
    form: 'requestEmailChange',
    href: '/settings/email',
    data: signedIn,
    values: { new_email: 'new@example.com' },
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['The password is incorrect.'],
    kept: { new_email: 'new@example.com' },
  },
  {
    form: 'cancelEmailChange',
    href: '/settings/email',
    data: signedIn,
    values: { email: 'new@example.com' },
    problem: problem(503, 'not_ready'),
    says: ['The service is not ready. Try again shortly.'],
  },
  {
    form: 'revokeSession',
    href: '/settings/sessions?end=s-2',
    data: signedIn,
    values: { session_id: 's-2' },
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['Enter your current password to sign out Mobile Safari 17.', 'The password is incorrect.'],
  },
  {
    form: 'revokeOtherSessions',
    href: '/settings/sessions?end=others',
    data: signedIn,
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['The password is incorrect.'],
  },
  {
    form: 'setupTotp',
    href: '/settings/two-step',
    data: signedIn,
    problem: problem(429, 'rate_limited', { retryAfter: 60 }),
    says: [WAIT_A_MINUTE],
  },
  {
    form: 'enableTotp',
    href: '/settings/two-step',
    data: signedIn,
    problem: fieldProblem(['code', 'code_incorrect']),
    // The same set-up again (its key from the page's query), the code refused.
    says: ['This code is not correct, or it was already used.', 'JBSW Y3DP EHPK 3PXP'],
    kept: { code: '', current_password: '' },
  },
  {
    form: 'disableTotp',
    href: '/settings/two-step?open=off',
    data: twoStepOn,
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['The password is incorrect.'],
  },
  {
    form: 'disableTotp',
    href: '/settings/two-step?open=off',
    data: signedIn,
    problem: problem(409, 'two_step_off'),
    // The page was out of date: said by the page, which shows it as it is now.
    says: ['Two-step sign-in is not on for this account.', 'Set up'],
  },
  {
    form: 'regenerateRecoveryCodes',
    href: '/settings/two-step?open=codes',
    data: twoStepOn,
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['The password is incorrect.'],
  },
  {
    form: 'renamePasskey',
    href: `/settings/passkeys?rename=${LAPTOP.id}`,
    data: signedIn,
    values: { passkey_id: LAPTOP.id, name: 'Laptop\u0007' },
    problem: fieldProblem(['name', 'name_invalid_chars']),
    says: ['The name must not contain control, formatting or invisible characters.'],
    kept: { name: 'Laptop\u0007' },
  },
  {
    form: 'removePasskey',
    href: `/settings/passkeys?remove=${LAPTOP.id}`,
    data: signedIn,
    values: { passkey_id: LAPTOP.id, name: LAPTOP.name },
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['Enter your current password to remove Work laptop.', 'The password is incorrect.'],
  },
  {
    form: 'exportData',
    href: '/settings/data',
    data: signedIn,
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['For your security, enter your current password', 'The password is incorrect.'],
  },
  {
    form: 'deleteAccount',
    href: '/settings/delete',
    data: signedIn,
    problem: fieldProblem(['current_password', 'password_incorrect']),
    says: ['The password is incorrect.'],
  },
];

describe('a page rendered with what its form posted without scripts came to', () => {
  it.each(REFUSALS.map((r) => [`${r.form} (${r.problem.code})`, r] as const))(
    '%s: says what was wrong, keeps what was entered, never a password',
    async (_, { form, href, data, values = {}, problem, says, kept = {} }) => {
      const document = await html(href, posted(data, form, { values, problem }));
      for (const text of says) expect(unescape(document)).toContain(text);
      for (const [id, value] of Object.entries(kept)) expect(inputValue(document, id), id).toBe(value);
      expect(passwordValues(document).every((value) => value === '')).toBe(true);
      expect(document).not.toContain(PASSWORD);
    },
  );

  it('puts the error summary first, each field marked and described by its message', async () => {
    const document = await html(
      '/register',
      posted(signedOut, 'register', {
        values: { name: 'Ada Lovelace', email: ADA.email },
        problem: fieldProblem(['email', 'email_taken'], ['password2', 'password_mismatch']),
      }),
    );
    expect(document).toMatch(/<div class="error-summary" tabindex="-1"[^>]*>.*<form /s);
    expect(document).toMatch(/<input [^>]*id="email"[^>]*aria-invalid="true"[^>]*aria-describedby="email-error/);
    expect(document).toContain('<p class="field-error" id="password2-error">The passwords do not match.</p>');
    // The way out of a taken address is offered as after a submit in the app.
    expect(document).toContain('href="/login?email=ada%40example.com"');
  });

  it('asks for the password when the data copy needs it, without calling that an error', async () => {
    const document = await html(
      '/settings/data',
      posted(signedIn, 'exportData', {
        values: {},
        problem: fieldProblem(['current_password', 'password_recheck_required']),
      }),
    );
    expect(document).toContain('For your security, enter your current password to download your data.');
    expect(inputValue(document, 'current_password')).toBe('');
    expect(document).not.toContain('error-summary');
  });

  it('asks for a second-step code where binding or removing a factor needs one, without calling that an error', async () => {
    const recheck = (field: string) => fieldProblem([field, 'second_factor_recheck_required']);
    const notice = 'For your security, confirm it is you with your second step: enter a code.';
    // New recovery codes: the code field (the app's or a recovery code), empty, beside the password.
    const codes = await html(
      '/settings/two-step?open=codes',
      posted(twoStepOn, 'regenerateRecoveryCodes', { values: {}, problem: recheck('code') }),
    );
    expect(unescape(codes)).toContain(notice);
    expect(codes).toContain('<label for="code">Code from your app, or a recovery code</label>');
    expect(inputValue(codes, 'code')).toBe('');
    expect(inputValue(codes, 'current_password')).toBe('');
    expect(codes).not.toContain('error-summary');
    // No passkey to use without scripts: the code is the way.
    expect(codes).not.toContain('Use a passkey');
    // Removing the last passkey: a recovery code, in the confirm step's form.
    const removing = await html(
      `/settings/passkeys?remove=${LAPTOP.id}`,
      posted(withPasskey, 'removePasskey', {
        values: { passkey_id: LAPTOP.id, name: LAPTOP.name },
        problem: recheck('code'),
      }),
    );
    expect(unescape(removing)).toContain(notice);
    expect(removing).toContain('<label for="code">Recovery code</label>');
    expect(inputValue(removing, 'code')).toBe('');
    expect(formsOf(removing).find((f) => f.name === 'removePasskey')?.hidden.passkey_id).toBe(LAPTOP.id);
    expect(removing).not.toContain('error-summary');
    // The app beside passkeys: a recovery code, under its own name beside the app's code; a wrong one said.
    const enabling = await html(
      '/settings/two-step',
      posted(withPasskey, 'enableTotp', { values: {}, problem: fieldProblem(['recovery_code', 'code_incorrect']) }),
    );
    expect(enabling).toContain('<label for="recovery_code">Recovery code</label>');
    expect(unescape(enabling)).toContain('This code is not correct, or it was already used.');
    expect(inputValue(enabling, 'recovery_code')).toBe('');
    expect(passwordValues(enabling).every((value) => value === '')).toBe(true);
  });

  /** A success the page shows in place, and what it shows. */
  const RESULTS: [
    form: PageFormName,
    href: string,
    data: PageData,
    outcome: Omit<FormOutcome, 'form'>,
    shows: string[],
    answers?: Record<string, unknown>,
  ][] = [
    [
      'forgotPassword',
      '/forgot-password',
      signedOut,
      { values: { email: ADA.email }, result: { ok: true } },
      [`If an account exists for ${ADA.email}, we have sent a link to it.`],
    ],
    [
      'verifyEmail',
      `/verify-email?token=${TOKEN}`,
      signedIn,
      { values: {}, result: {} },
      ['Your email address is confirmed.'],
    ],
    [
      'confirmEmailChange',
      `/confirm-email-change?token=${TOKEN}`,
      signedOut,
      { values: {}, result: { email: 'new@example.com' } },
      ['Your email address is now new@example.com.'],
    ],
    [
      'resendVerification',
      '/account',
      signedIn,
      { values: {}, result: { alreadyVerified: false } },
      [`We have sent a new link to ${ADA.email}.`],
    ],
    [
      // The registration notice's own "Send it again": the notice says it went, and still offers the change of address.
      'resendVerification',
      '/account',
      signedIn,
      { values: { notice: 'registered' }, result: { ok: true, alreadyVerified: false } },
      [`We sent a new confirmation link to ${ADA.email}.`, 'Wrong address?', '<a href="/settings/email">Change it</a>'],
    ],
    [
      'dismissSecondFactorSuggestion',
      '/account',
      // Asked after the dismissal: the account no longer suggests it.
      { ...signedIn, security: SECURITY },
      { values: {}, result: { ok: true } },
      ['We won’t suggest it again, on any device.'],
    ],
    [
      'changeName',
      '/settings/name',
      { ...signedIn, user: { ...signedIn.user!, name: 'Ada King' } },
      { values: { name: 'Ada King' }, result: { user: { ...signedIn.user, name: 'Ada King' } } },
      ['Your name has been changed to Ada King.'],
    ],
    [
      'requestEmailChange',
      '/settings/email',
      signedIn,
      { values: { new_email: 'new@example.com' }, result: { ok: true } },
      ['We sent a link to new@example.com.'],
    ],
    [
      'cancelEmailChange',
      '/settings/email',
      signedIn,
      { values: { email: 'new@example.com' }, result: { ok: true } },
      ['The change was cancelled: the link sent to new@example.com no longer works.'],
      // Asked after the change: none is waiting any more.
      { 'emailChange.pending': { pending: null } },
    ],
    [
      'revokeSession',
      '/settings/sessions?end=s-2',
      signedIn,
      { values: { session_id: 's-2' }, result: { ok: true, signedOut: false } },
      ['That device was signed out.'],
    ],
    [
      'revokeOtherSessions',
      '/settings/sessions?end=others',
      signedIn,
      { values: {}, result: { ok: true, revoked: 1 } },
      ['1 other device was signed out.'],
    ],
    [
      'setupTotp',
      '/settings/two-step',
      signedIn,
      { values: {}, result: SETUP },
      ['1. Add this account to your authenticator app', 'JBSW Y3DP EHPK 3PXP', `src="${SETUP.qrCode}"`],
    ],
    [
      'enableTotp',
      '/settings/two-step',
      twoStepOn,
      { values: {}, result: { recoveryCodes: CODES } },
      ['Two-step sign-in is now on.', ...CODES, '<a href="/settings/two-step" class="primary button-link">Done</a>'],
    ],
    [
      'regenerateRecoveryCodes',
      '/settings/two-step?open=codes',
      twoStepOn,
      { values: {}, result: { recoveryCodes: CODES } },
      ['Here are your new recovery codes. The old ones no longer work.', ...CODES],
    ],
    [
      'disableTotp',
      '/settings/two-step?open=off',
      signedIn,
      { values: {}, result: { ok: true } },
      ['Two-step sign-in is off. Your recovery codes were deleted.', 'Set up'],
    ],
    [
      'renamePasskey',
      `/settings/passkeys?rename=${LAPTOP.id}`,
      withPasskey,
      { values: { passkey_id: LAPTOP.id, name: 'Portable' }, result: { ok: true } },
      ['The passkey is now called Portable.'],
    ],
    [
      'removePasskey',
      `/settings/passkeys?remove=${LAPTOP.id}`,
      withPasskey,
      { values: { passkey_id: LAPTOP.id, name: 'Old key' }, result: { ok: true } },
      ['Old key was removed.'],
    ],
    [
      'removePasskey',
      `/settings/passkeys?remove=${LAPTOP.id}`,
      signedIn,
      { values: { passkey_id: LAPTOP.id, name: 'Old key' }, result: { ok: true } },
      ['Old key was removed. Two-step sign-in is off, and your recovery codes were deleted.'],
    ],
    [
      'deleteAccount',
      '/settings/delete',
      signedOut,
      { values: {}, result: { ok: true } },
      ['Your account has been deleted, and you have been signed out.'],
    ],
  ];

  it.each(RESULTS.map(([form, ...rest]) => [form, form, ...rest] as const))(
    '%s: shows its result in place, the form it came from closed',
    async (_, form, href, data, outcome, shows, answers) => {
      const document = await html(href, posted(data, form, outcome), answers);
      for (const text of shows) expect(unescape(document)).toContain(text);
      // The step the form was in is closed: its form is not on the page again.
      if (!['setupTotp', 'changeName', 'requestEmailChange'].includes(form))
        expect(formsOf(document).map((f) => f.name)).not.toContain(form);
    },
  );

  it('shows recovery codes without the buttons that need scripts (copy, download)', async () => {
    const document = await html(
      '/settings/two-step',
      posted(signedIn, 'enableTotp', { values: {}, result: { recoveryCodes: CODES } }),
    );
    expect(document).not.toContain('Copy codes');
    expect(document).not.toContain('Download as a text file');
    const setUp = await html('/settings/two-step', posted(signedIn, 'setupTotp', { values: {}, result: SETUP }));
    expect(setUp).not.toContain('Copy key');
  });
});

describe('the account page as the gateway renders it', () => {
  it('says when the password last changed, the time in a <time> the app takes over as it is', async () => {
    const document = unescape(await html('/account', signedIn));
    expect(document).toMatch(
      new RegExp(
        `<span class="password-changed">Last changed <time dateTime="${SECURITY.passwordChangedAt}" title="[^"]+">3 days ago</time></span>`,
      ),
    );
  });

  it('just after registering (the state a post handed over): one status box, with the one form that sends the link again', async () => {
    const document = await html('/account', { ...signedIn, state: { registered: true } });
    expect(unescape(document)).toContain(
      `<div role="status" id="registered-said" class="success" tabindex="-1"><p>We sent a confirmation link to ${ADA.email}. Open it to confirm your address.</p>`,
    );
    const resend = formsOf(document).filter((form) => form.name === 'resendVerification');
    expect(resend).toEqual([
      { action: '/account', method: 'post', name: 'resendVerification', hidden: { notice: 'registered' } },
    ]);
    expect(document).toContain('<a href="/settings/email">Change it</a>');
  });

  it('after a sign-in with a recovery code, says so with the codes left; the suggestion and its form where the account has it', async () => {
    const notice = unescape(await html('/account?notice=recovery_code_used', { ...twoStepOn, locale: 'de' }));
    expect(notice).toContain('Sie haben sich mit einem Wiederherstellungscode angemeldet. Noch 10 übrig.');
    expect(notice).not.toContain('Vorschlag ausblenden');
    const suggested = await html('/account', signedIn);
    expect(formsOf(suggested).map((form) => form.name)).toEqual([
      'signOut',
      'dismissSecondFactorSuggestion',
      'resendVerification',
    ]);
    expect(unescape(suggested)).toContain('<a href="/settings/passkeys">Add a passkey</a>');
  });
});
