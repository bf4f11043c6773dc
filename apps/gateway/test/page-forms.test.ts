import { eq, inArray, sql } from 'drizzle-orm';
import { realms, sessions, users } from '@accounts/db';
import { parseOtpauth } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_FORMS } from '@accounts/web/contract';
import { startGateway, STRONG, STRONG2, uniqueEmail, type Gateway, type Response } from './support/gateway.js';
import { authenticator } from './support/two-step.js';

// The pages' forms posted by the browser itself, without scripts: each runs the same procedure
// as /trpc and the form routes, then the next page (303) or the page again, with what was wrong.

/** A browser without scripts: its cookie jar, and forms posted to a page as the browser posts them. */
function browser(gw: Gateway, host = 'localhost') {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      const gone = value === '' || attrs.some((a) => /max-age=0|expires=thu, 01 jan 1970/i.test(a.trim()));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
    return { ...res, location: res.headers.location as string | undefined };
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const origin = `http://${host}:${gw.port}`;
  return {
    jar,
    get: async (path: string) =>
      keep(await gw.send('GET', path, { host, headers: { accept: 'text/html', cookie: cookie() } })),
    post: async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      keep(
        await gw.send('POST', path, {
          host,
          headers: {
            accept: 'text/html',
            'content-type': 'application/x-www-form-urlencoded',
            origin,
            'sec-fetch-site': 'same-origin',
            cookie: cookie(),
            ...headers,
          },
          body: new URLSearchParams(fields).toString(),
        }),
      ),
  };
}

const pageData = (html: string) =>
  JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
const summaryOf = (html: string) => /<div class="error-summary"[^>]*>(.*?)<\/div>/s.exec(html)?.[1] ?? null;
const inputValue = (html: string, id: string) =>
  new RegExp(`<input [^>]*id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1] ??
  new RegExp(`<input [^>]*value="([^"]*)"[^>]*id="${id}"`).exec(html)?.[1];

describe('page forms posted without scripts', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { SERVE_WEB: 'true', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw.close());

  const register = async (b = browser(gw), email = uniqueEmail('page-form'), path = '/register') => {
    const res = await b.post(path, {
      _form: 'register',
      name: 'Ada Lovelace',
      email,
      password: STRONG,
      password2: STRONG,
    });
    return { b, email, res };
  };

  it('registers and lands on the account page (303), signed in with the same cookie as the JSON routes', async () => {
    const { b, email, res } = await register();
    expect(res.status).toBe(303);
    expect(res.location).toBe('/account');
    expect([...b.jar.keys()]).toContain('session');
    const account = await b.get('/account');
    expect(account.status).toBe(200);
    expect(account.text).toContain(`<span class="account-email">${email}</span>`);
    // `next` is where the app would go after registering.
    const other = await register(browser(gw), uniqueEmail('page-next'), '/register?next=%2Fsettings%2Fname');
    expect(other.res.location).toBe('/settings/name');
  });

  it('in a realm that signs in only confirmed addresses, registers without a session and says to confirm (200)', async () => {
    await gw.db.db.update(realms).set({ requireVerifiedEmail: true }).where(eq(realms.slug, 'acme'));
    try {
      const b = browser(gw, 'acme.localhost');
      const email = uniqueEmail('page-confirm');
      const res = await b.post('/register', {
        _form: 'register',
        name: 'Ada',
        email,
        password: STRONG,
        password2: STRONG,
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain(`We have sent a link to ${email}`);
      expect(b.jar.has('session')).toBe(false);
      expect(await gw.db.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
    } finally {
      await gw.db.db.update(realms).set({ requireVerifiedEmail: false }).where(eq(realms.slug, 'acme'));
    }
  });

  it('renders the page again with 422, the summary and field messages, the name and email kept, no password', async () => {
    const b = browser(gw);
    const email = uniqueEmail('page-422');
    const res = await b.post('/register', {
      _form: 'register',
      name: 'Grace <Hopper>',
      email,
      password: STRONG,
      password2: STRONG2,
    });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    const summary = summaryOf(res.text)!;
    expect(summary).toContain('<a href="#password2">Confirm password: The passwords do not match.</a>');
    expect(res.text).toMatch(/id="password2-error">The passwords do not match.</);
    expect(inputValue(res.text, 'name')).toBe('Grace &lt;Hopper&gt;');
    expect(inputValue(res.text, 'email')).toBe(email);
    expect(inputValue(res.text, 'password')).toBe('');
    expect(inputValue(res.text, 'password2')).toBe('');
    for (const secret of [STRONG, STRONG2, encodeURIComponent(STRONG)]) expect(res.text).not.toContain(secret);
    expect(pageData(res.text).form).toMatchObject({ form: 'register', values: { name: 'Grace <Hopper>', email } });
    // Nothing was created.
    expect(await gw.db.db.select().from(users).where(eq(users.email, email))).toEqual([]);
    // In the page's language, as the app says it.
    const de = await b.post(
      '/register',
      { _form: 'register', name: 'A', email, password: STRONG, password2: STRONG2 },
      { 'accept-language': 'de' },
    );
    expect(summaryOf(de.text)).toContain('Die Passwörter stimmen nicht überein.');
  });

  it('signs in to `next`, refuses a wrong password on the page, and keeps `next` on this site', async () => {
    const { email } = await register();
    const b = browser(gw);
    const wrong = await b.post('/login?next=%2Fsettings', { _form: 'signIn', email, password: STRONG2 });
    expect(wrong.status).toBe(422);
    expect(summaryOf(wrong.text)).toContain('The email address or password is incorrect.');
    expect(inputValue(wrong.text, 'email')).toBe(email);
    // The form posts to the page's own address, `next` included.
    expect(wrong.text).toMatch(/<form [^>]*action="\/login\?next=%2Fsettings"/);
    const ok = await b.post('/login?next=%2Fsettings', { _form: 'signIn', email, password: STRONG });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/settings');
    for (const next of [
      '//evil.example',
      'https://evil.example/x',
      '/\\evil.example',
      '/%2F/evil.example',
      '\t//evil.example',
    ]) {
      const other = browser(gw);
      const res = await other.post(`/login?next=${encodeURIComponent(next)}`, {
        _form: 'signIn',
        email,
        password: STRONG,
      });
      expect(res.status, next).toBe(303);
      // Read as a browser reads a Location: on this site, whatever the path.
      expect(new URL(res.location!, `http://localhost:${gw.port}`).origin, next).toBe(`http://localhost:${gw.port}`);
      expect(res.location, next).toMatch(/^\/(?![/\\])/);
    }
  });

  it('counts wrong passwords in the lockout like the form routes: the page says to wait, with Retry-After', async () => {
    const { email } = await register();
    const b = browser(gw);
    for (let i = 0; i < 5; i++)
      expect((await b.post('/login', { _form: 'signIn', email, password: STRONG2 })).status).toBe(422);
    const locked = await b.post('/login', { _form: 'signIn', email, password: STRONG });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(summaryOf(locked.text)).toMatch(/Too many|try again/i);
    expect(b.jar.has('session')).toBe(false);
    // The same count as the JSON route's: it is locked there too.
    expect((await gw.form('/users/login', { email, password: STRONG })).status).toBe(429);
  });

  it('changes the password: other sessions end, and the account page says so (a one-time state, no secret)', async () => {
    const { b, email } = await register();
    const other = browser(gw);
    expect((await other.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(303);
    const res = await b.post('/settings', {
      _form: 'changePassword',
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/account');
    const state = b.jar.get('page_state')!;
    expect(JSON.parse(Buffer.from(state, 'base64url').toString())).toEqual({
      passwordChanged: { otherSessionsRevoked: 1 },
    });
    const account = await b.get('/account');
    expect(account.text).toContain('Your password has been changed.');
    // Read once: the next load of the page says nothing more.
    expect(b.jar.has('page_state')).toBe(false);
    expect((await b.get('/account')).text).not.toContain('Your password has been changed.');
    // The other browser is signed out: its next page is the sign-in page.
    const ended = await other.get('/settings');
    expect(ended.status).toBe(302);
    expect(ended.location).toBe('/login?next=%2Fsettings');
  });

  it('after registering, the account page says where the confirmation link went, and sends it again from that box', async () => {
    const { b, email, res } = await register();
    expect(res.location).toBe('/account');
    expect(JSON.parse(Buffer.from(b.jar.get('page_state')!, 'base64url').toString())).toEqual({ registered: true });
    const account = await b.get('/account');
    expect(account.text).toContain(
      `<div role="status" id="registered-said" class="success" tabindex="-1"><p>We sent a confirmation link to ${email}. Open it to confirm your address.</p>`,
    );
    expect(account.text).toContain('<a href="/settings/email">Change it</a>');
    // One way to get the link again on the page: the box's, which names itself.
    expect(account.text.match(/name="_form" value="resendVerification"/g)).toHaveLength(1);
    expect(account.text).toContain('<input type="hidden" name="notice" value="registered"/>');
    const again = await b.post('/account', { _form: 'resendVerification', notice: 'registered' });
    expect(again.status).toBe(200);
    expect(again.text).toContain(
      `<div role="status" id="registered-said" class="success" tabindex="-1"><p>We sent a new confirmation link to ${email}.</p>`,
    );
    expect(again.text).not.toMatch(/name="_form" value="resendVerification"/);
    // In German; then over the address's mail cap (3 links a window: the registration's and two more),
    // which the same box says, the button kept to try later.
    const de = await b.post(
      '/account',
      { _form: 'resendVerification', notice: 'registered' },
      { 'accept-language': 'de' },
    );
    expect(de.status).toBe(200);
    expect(de.text).toContain(`<p>Wir haben einen neuen Bestätigungslink an ${email} gesendet.</p>`);
    const capped = await b.post('/account', { _form: 'resendVerification', notice: 'registered' });
    expect(capped.status).toBe(429);
    expect(capped.headers['retry-after']).toMatch(/^\d+$/);
    expect(capped.text).toMatch(
      /<div role="status" id="registered-said" class="notice" tabindex="-1"><p>Too many requests[^<]*<\/p>/,
    );
    expect(capped.text).toContain('Send it again');
    // The state is read once: the account page opened again says nothing of it.
    expect((await b.get('/account')).text).not.toContain('registered-said');
  });

  it('suggests a passkey or two-step sign-in until dismissed with its form, then never again, on any browser', async () => {
    const { b, email } = await register();
    const other = browser(gw);
    expect((await other.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(303);
    const before = await b.get('/account');
    expect(before.text).toContain('<div class="notice suggestion">');
    expect(before.text).toContain('<a href="/settings/passkeys">Add a passkey</a>');
    expect(pageData(before.text).security).toEqual({
      passwordChangedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      suggestSecondFactor: true,
    });
    // The password row says when it was set, in the page's language.
    expect(before.text).toMatch(/<span class="password-changed">Last changed <time [^>]*>now<\/time><\/span>/);
    const dismissed = await b.post('/account', { _form: 'dismissSecondFactorSuggestion' });
    expect(dismissed.status).toBe(200);
    expect(dismissed.text).toContain('We won’t suggest it again, on any device.');
    expect(dismissed.text).not.toContain('<div class="notice suggestion">');
    for (const who of [b, other]) {
      const page = await who.get('/account');
      expect(page.text).not.toContain('suggestion');
      expect(pageData(page.text).security.suggestSecondFactor).toBe(false);
    }
    const fr = await gw.send('GET', '/account', {
      headers: { accept: 'text/html', 'accept-language': 'fr', cookie: `session=${b.jar.get('session')}` },
    });
    expect(fr.text).toMatch(/<span class="password-changed">Dernière modification <time [^>]*>maintenant<\/time>/);
  });

  it('after a sign-in with a recovery code, /account?notice=recovery_code_used says how many are left', async () => {
    const { b, email } = await register();
    const setup = await b.post('/settings/two-step', { _form: 'setupTotp' });
    const app = authenticator(parseOtpauth(pageData(setup.text).form.result.uri).secret);
    const enabled = await b.post('/settings/two-step', {
      _form: 'enableTotp',
      code: await app.next(),
      current_password: STRONG,
    });
    const codes: string[] = pageData(enabled.text).form.result.recoveryCodes;
    const c = browser(gw);
    expect((await c.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(200);
    const done = await c.post('/login', { _form: 'secondStep', code: codes[0]!, email, methods: 'totp recovery_code' });
    expect(done.status).toBe(303);
    const page = await c.get('/account?notice=recovery_code_used');
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<div role="status" id="recovery-said" class="notice" tabindex="-1"><p>You signed in with a recovery code. 9 left.</p></div>',
    );
    // Neither the suggestion (the account has the app) nor a notice the address does not name.
    expect(page.text).not.toContain('suggestion');
    expect((await c.get('/account?notice=nonsense')).text).not.toContain('recovery-said');
  });

  it('sends signed-out people from a signed-in page to sign in, and signed-in ones away from it (on the server)', async () => {
    const { b } = await register();
    const anonymous = browser(gw);
    for (const path of ['/account', '/settings', '/settings/sessions', '/settings/two-step', '/settings/delete']) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(302);
      expect(res.location, path).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    for (const path of ['/login', '/register']) {
      const res = await b.get(path);
      expect(res.status, path).toBe(302);
      expect(res.location, path).toBe('/account');
    }
  });

  it('completes the second step of a sign-in with two-step sign-in: the code page, a wrong code, then the account', async () => {
    const { b, email } = await register();
    const setup = await b.post('/settings/two-step', { _form: 'setupTotp' });
    expect(setup.status).toBe(200);
    // The set-up's secret and QR code are on the page, shown at once (never carried in a cookie).
    const { secret } = parseOtpauth(pageData(setup.text).form.result.uri);
    expect(setup.text).toContain(
      secret
        .replace(/(.{4})/g, '$1 ')
        .trim()
        .slice(0, 9),
    );
    const app = authenticator(secret);
    const wrongEnable = await b.post('/settings/two-step', {
      _form: 'enableTotp',
      code: app.wrong(),
      current_password: STRONG,
    });
    expect(wrongEnable.status).toBe(422);
    // The same secret again, beside the error.
    expect(pageData(wrongEnable.text).queries.queries[0].state.data.secret).toBe(secret);
    const enabled = await b.post('/settings/two-step', {
      _form: 'enableTotp',
      code: await app.next(),
      current_password: STRONG,
    });
    expect(enabled.status).toBe(200);
    const codes: string[] = pageData(enabled.text).form.result.recoveryCodes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(enabled.text).toContain(code);

    const c = browser(gw);
    const first = await c.post('/login?next=%2Fsettings%2Fname', { _form: 'signIn', email, password: STRONG });
    expect(first.status).toBe(200);
    expect(first.text).toMatch(/<input [^>]*id="code"/);
    expect(first.text).not.toMatch(/<input [^>]*id="password"/);
    expect(c.jar.has('pending_sign_in')).toBe(true);
    expect(c.jar.has('session')).toBe(false);
    const wrong = await c.post('/login?next=%2Fsettings%2Fname', {
      _form: 'secondStep',
      code: app.wrong(),
      email,
      methods: 'totp recovery_code',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/<input [^>]*id="code"/);
    expect(summaryOf(wrong.text)).toBeTruthy();
    const done = await c.post('/login?next=%2Fsettings%2Fname', {
      _form: 'secondStep',
      code: await app.next(),
      email,
      methods: 'totp recovery_code',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/settings/name');
    expect(c.jar.has('session')).toBe(true);
    // Without a pending sign-in, the code step is over: back to the password, 401.
    const late = await browser(gw).post('/login', { _form: 'secondStep', code: codes[0]!, email });
    expect(late.status).toBe(401);
    expect(late.text).toMatch(/<input [^>]*id="password"/);
  });

  it('asks for a code on the page when new recovery codes need a second factor, and makes them with it', async () => {
    const { b, email } = await register();
    const other = browser(gw);
    expect((await other.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(303);
    const setup = await b.post('/settings/two-step', { _form: 'setupTotp' });
    const app = authenticator(parseOtpauth(pageData(setup.text).form.result.uri).secret);
    const enabled = await b.post('/settings/two-step', {
      _form: 'enableTotp',
      code: await app.next(),
      current_password: STRONG,
    });
    expect(enabled.status).toBe(200);
    const [firstCode] = pageData(enabled.text).form.result.recoveryCodes as string[];
    // The other browser's session, from before the second step, ended with it.
    const gone = await other.get('/settings/two-step');
    expect(gone.status).toBe(302);
    expect(gone.location).toMatch(/^\/login\?next=/);

    // Five minutes on: the session's second factor is stale.
    await gw.db.db
      .update(sessions)
      .set({ factorCheckedAt: sql`now() - interval '6 minutes'` })
      .where(inArray(sessions.userId, gw.db.db.select({ id: users.id }).from(users).where(eq(users.email, email))));
    const asked = await b.post('/settings/two-step?open=codes', {
      _form: 'regenerateRecoveryCodes',
      current_password: STRONG,
    });
    expect(asked.status).toBe(422);
    expect(asked.text).toMatch(/<input [^>]*id="code"/);
    expect(asked.text).toContain('For your security, confirm it is you with your second step: enter a code.');
    expect(inputValue(asked.text, 'current_password')).toBe('');
    expect(summaryOf(asked.text)).toBeNull();
    const made = await b.post('/settings/two-step?open=codes', {
      _form: 'regenerateRecoveryCodes',
      current_password: STRONG,
      code: firstCode!,
    });
    expect(made.status).toBe(200);
    const codes = pageData(made.text).form.result.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(made.text).toContain(code);
    // The code used is never shown back.
    expect(made.text).not.toContain(firstCode!);
  });

  it('refuses a cross-site post, a form the page does not have, and a body that is not a form', async () => {
    const email = uniqueEmail('page-cross');
    const b = browser(gw);
    const fields = { _form: 'register', name: 'Mallory', email, password: STRONG, password2: STRONG };
    for (const headers of [
      { origin: 'http://evil.example' },
      { origin: `http://acme.localhost:${gw.port}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ] as Record<string, string>[]) {
      const res = await b.post('/register', fields, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await gw.db.db.select().from(users).where(eq(users.email, email))).toEqual([]);
    expect((await b.post('/login', { ...fields, _form: 'changePassword' })).status).toBe(404);
    expect((await b.post('/register', { ...fields, _form: 'toString' })).status).toBe(404);
    expect((await b.post('/register', { name: 'x' })).status).toBe(404);
    const json = await gw.send('POST', '/register', {
      headers: { accept: 'text/html', 'content-type': 'application/json', origin: `http://localhost:${gw.port}` },
      body: JSON.stringify(fields),
    });
    expect(json.status).toBe(415);
  });

  it('answers every form of every page: never a 404 or a 5xx, always a page or the next one', async () => {
    const { b } = await register();
    const samplePages = ['/account', '/settings/activity'];
    for (const [name, spec] of Object.entries(PAGE_FORMS)) {
      const pages = spec.pages === '*' ? samplePages : spec.pages;
      for (const page of pages) {
        // Signed in where the page is for a signed-in person; a fresh browser for the others.
        const signedIn = ![
          '/register',
          '/login',
          '/forgot-password',
          '/reset-password',
          '/verify-email',
          '/confirm-email-change',
        ].includes(page);
        const who = signedIn && name !== 'signOut' ? b : browser(gw);
        const res = await who.post(page, { _form: name });
        expect(res.status, `${name} on ${page}`).not.toBe(404);
        expect(res.status, `${name} on ${page}`).toBeLessThan(500);
        if (res.status === 303) expect(res.location, `${name} on ${page}`).toMatch(/^\/(?![/\\])/);
        else if (!(spec as { download?: true }).download)
          expect(res.headers['content-type'], `${name} on ${page}`).toMatch(/^text\/html/);
      }
    }
  });

  it('hands the copy of the data over as a file no cache keeps, and forgets nothing typed in the page', async () => {
    const { b, email } = await register();
    const res = await b.post('/settings/data', { _form: 'exportData', current_password: STRONG });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="account-default-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json.account.email).toBe(email);
    const wrong = await b.post('/settings/data', { _form: 'exportData', current_password: STRONG2 });
    expect(wrong.status).toBe(422);
    expect(wrong.text).not.toContain(STRONG2);
  });

  it("takes each page's forms at a POST route of that page; the address stays no API route", async () => {
    for (const spec of Object.values(PAGE_FORMS))
      for (const page of spec.pages === '*' ? ['/', '/account', '/settings/activity'] : spec.pages)
        expect(gw.app.hasRoute({ method: 'POST', url: page }), page).toBe(true);
    // Not a page's form (no HTML asked for), or another method: not found, as before it had a route.
    for (const method of ['POST', 'GET', 'PUT'] as const) {
      const res = await gw.send(method, '/login', { headers: { accept: 'application/json' } });
      expect(res.status, method).toBe(404);
      expect(res.headers.allow, method).toBeUndefined();
    }
    // The sign-out of the not-found page posts to an address that is no page: it signs out all the same.
    const { b } = await register();
    const out = await b.post('/no/such/page', { _form: 'signOut' });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(b.jar.has('session')).toBe(false);
  });

  it('signs out (303 to the sign-in page) from any page, and deletes an account', async () => {
    const { b, email } = await register();
    const out = await b.post('/settings/activity', { _form: 'signOut' });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(b.jar.has('session')).toBe(false);
    expect((await b.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(303);
    const deleted = await b.post('/settings/delete', { _form: 'deleteAccount', current_password: STRONG });
    expect(deleted.status).toBe(200);
    expect(b.jar.has('session')).toBe(false);
    expect(await gw.db.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });
});

// Behind a TLS proxy that hides the scheme, COOKIE_SECURE makes every cookie Secure and __Host-
// named: the state a page hands the next one across a redirect, as the session.
describe('page forms when the service is configured as https', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', {
      SERVE_WEB: 'true',
      MAIL_POLL_MS: '0',
      COOKIE_SECURE: 'true',
      TRUST_PROXY: '1',
    });
  });
  afterAll(() => gw.close());

  const setCookies = (res: Response) => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const named = (res: Response, name: string) => setCookies(res).find((c) => c.startsWith(`${name}=`));

  it('names, sets and clears the page-state cookie as it does the session cookie: __Host-, Secure', async () => {
    const b = browser(gw);
    const proxied = { 'x-forwarded-for': '203.0.113.21' };
    const fields = { name: 'Ada', email: uniqueEmail('page-secure'), password: STRONG, password2: STRONG };
    const made = await b.post('/register', { _form: 'register', ...fields }, proxied);
    expect(made.status).toBe(303);
    expect(named(made, '__Host-session')).toMatch(/; Secure/);
    const changed = await b.post(
      '/settings',
      { _form: 'changePassword', current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      proxied,
    );
    expect(changed.status).toBe(303);
    expect(named(changed, '__Host-session')).toMatch(/; Secure/);
    expect(named(changed, '__Host-page_state')).toMatch(/; Secure/);
    expect(named(changed, 'page_state')).toBeUndefined();
    // The next page reads it under that name, and clears it the same way.
    const account = await b.get('/account');
    expect(account.text).toContain('Your password has been changed.');
    expect(named(account, '__Host-page_state')).toMatch(/; Secure/);
    expect(b.jar.has('__Host-page_state')).toBe(false);
  });
});
