import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIdOf, WEB_DIST_DIR } from '../src/web-app.js';
import { queuedToken } from './support/email-openapi.js';
import { startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';
import { rawRequest } from './support/raw-http.js';

// The web app's production build as the gateway serves it: compressed copies, cache lifetimes,
// each page rendered on the server, and the well-known address for password managers.

const html = { accept: 'text/html,application/xhtml+xml' };
const script = readdirSync(`${WEB_DIST_DIR}/assets`).find((f) => /^index-.*\.js$/.test(f))!;

describe('the web app as served by the gateway', () => {
  let gw: Gateway;
  beforeAll(async () => {
    // Mails stay queued, so tests can read their links.
    gw = await startGateway('pglite', { SERVE_WEB: 'true', PRODUCT_NAME: 'Example ID', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw.close());

  /** The raw bytes and headers, without undici decoding anything. */
  async function raw(path: string, headers: Record<string, string> = {}) {
    const res = await request(`http://127.0.0.1:${gw.port}${path}`, {
      headers: { host: `localhost:${gw.port}`, ...headers },
    });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  }

  it('sends hashed assets compressed (brotli, else gzip, else plain) and cached for a year', async () => {
    const plain = await raw(`/assets/${script}`, { 'accept-encoding': 'identity' });
    const br = await raw(`/assets/${script}`, { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await raw(`/assets/${script}`, { 'accept-encoding': 'gzip, deflate' });
    for (const res of [plain, br, gz]) {
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/javascript/);
    }
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('never serves a source map: it is not found (404), as a file that is not there, not a 405', async () => {
    const map = readdirSync(`${WEB_DIST_DIR}/assets`).find((f) => f.endsWith('.js.map'));
    expect(map, 'the build writes source maps').toBeDefined();
    for (const method of ['GET', 'HEAD']) {
      for (const path of [`/assets/${map}`, '/assets/no-such-file.js']) {
        const res = await request(`http://127.0.0.1:${gw.port}${path}`, {
          method: method as 'GET',
          headers: { host: `localhost:${gw.port}`, 'accept-encoding': 'gzip, br' },
        });
        await res.body.dump();
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.headers.allow, `${method} ${path}`).toBeUndefined();
      }
    }
  });

  it('sends a signed-out page, compressed, to be revalidated on every load, and the root to where it leads', async () => {
    for (const path of ['/login', '/register?x=1', '/no/such/page']) {
      const res = await raw(path, { ...html, 'accept-encoding': 'gzip' });
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('private, no-cache');
      expect(res.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(res.body).toString(), path).toContain('<div id="root">');
    }
    // The root is the sign-in page for nobody signed in, as the app decides it, on the server.
    const root = await raw('/', html);
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/login');
  });

  it('sends each page in the language the browser asks for, whole without scripts: no notice that it needs them', async () => {
    const cases = [
      ['de-CH,de;q=0.9,en;q=0.5', 'de', 'Anmelden'],
      ['fr', 'fr', 'Se connecter'],
      ['ja', 'en', 'Sign in'],
    ] as const;
    for (const [acceptLanguage, lang, heading] of cases) {
      const res = await raw('/login', { ...html, 'accept-language': acceptLanguage, 'accept-encoding': 'br' });
      const page = brotliDecompressSync(res.body).toString();
      expect(res.headers['content-language']).toBe(lang);
      expect(res.headers.vary).toMatch(/accept-language/i);
      expect(page).toContain(`<html lang="${lang}">`);
      expect(page).toContain(`<h1 tabindex="-1">${heading}</h1>`);
      expect(page).not.toMatch(/noscript|JavaScript/);
      // Its form is the browser's own: posted to the page, fields never read-only, the button enabled.
      expect(page).toMatch(
        /<form [^>]*action="\/login" method="post"><input type="hidden" name="_form" value="signIn"\/>/,
      );
      expect(page).not.toMatch(/readOnly|disabled=""/);
    }
  });

  const page = async (path: string, headers: Record<string, string> = {}) => {
    const res = await raw(path, { ...html, 'accept-encoding': 'br', ...headers });
    return { res, text: brotliDecompressSync(res.body).toString() };
  };
  const pageData = (text: string) =>
    JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/.exec(text)![1]!);

  it("sends each page rendered, in the request's language, with the answers it was rendered from", async () => {
    const { text: signIn } = await page('/login', { 'accept-language': 'de' });
    expect(signIn).toContain('<title>Anmelden · Example ID</title>');
    expect(signIn).toContain('<a href="/" class="product-name">Example ID</a>');
    // Nobody is signed in, and the page knows it: the signed-out navigation, at once.
    expect(signIn).toContain('<nav aria-label="Hauptmenü"><a href="/login" aria-current="page">Anmelden</a>');
    expect(signIn).toContain('<h1 tabindex="-1">Anmelden</h1>');
    // The form itself, posted (never a GET that would put a password in the address) if sent before the app runs;
    // the email field offers the browser's passkeys too (conditional mediation).
    expect(signIn).toMatch(
      /<form [^>]*method="post"[^>]*>.*<input type="email" autoComplete="username webauthn"[^>]*id="email"/,
    );
    expect(signIn).not.toContain('class="realm"');
    expect(pageData(signIn)).toEqual({
      locale: 'de',
      settings: {
        productName: 'Example ID',
        realm: { slug: 'default', name: 'Example ID', isDefault: true, named: false },
        passwordPolicy: expect.any(Object),
      },
      user: null,
      // The realm's identity providers ("Continue with …"), none here, come with the page too.
      queries: expect.objectContaining({
        queries: [
          expect.objectContaining({
            queryKey: [['upstream', 'providers'], { type: 'query' }],
            state: expect.objectContaining({ data: { providers: [] } }),
          }),
        ],
      }),
    });
    // The settings and who is signed in come with the page: the app asks neither again.
    expect(signIn).not.toContain('href="/trpc/account.settings"');
    expect(signIn).not.toContain('href="/trpc/account.me"');
    // A realm of its own is named; a trailing slash and a query do not change the page.
    const { text: acme } = await page('/login/?x=1', {
      host: `acme.localhost:${gw.port}`,
      'accept-language': 'fr',
    });
    expect(acme).toContain('<title>Se connecter · Acme Inc · Example ID</title>');
    expect(acme).toContain(
      '<span class="visually-hidden">Domaine\u00a0: </span><span class="realm-name">Acme Inc</span>',
    );
    expect(acme).toContain('<h1 tabindex="-1">Se connecter</h1>');
    // An address that is no page gets the app's own "not found" page.
    const { text: unknown } = await page('/no/such/page');
    expect(unknown).toContain('<title>Page not found · Example ID</title>');
  });

  it("renders a signed-in person's page with their account, never for anyone else, escaped", async () => {
    const name = '</script><script>alert(1)</script> & "Jo"';
    const email = uniqueEmail('page');
    const reg = await gw.form('/users/register', { name, email, password: STRONG, password2: STRONG });
    expect(reg.status).toBe(201);
    const { res, text } = await page('/account', { cookie: reg.cookie! });
    // Their name and email are in it: no cache keeps it (signed-out pages are only revalidated).
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toMatch(/cookie/i);
    expect(text).toContain(
      `<span class="account-name">&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Jo&quot;</span>`,
    );
    expect(text).toContain(`<span class="account-email">${email}</span>`);
    expect(text).not.toContain('<script>alert(1)');
    expect(pageData(text).user).toMatchObject({ name, email, realm: 'default' });
    // Signed in: the navigation is drawn at once, and nothing is asked again.
    expect(text).toContain('href="/settings/sessions"');
    expect(text).not.toContain('href="/trpc/account.me"');
    // Without the cookie (or with a forged one) the same address is the way to sign in, with no account in it.
    for (const cookie of [undefined, 'session=forged']) {
      const other = await raw('/account', { ...html, ...(cookie ? { cookie } : {}) });
      expect(other.status).toBe(302);
      expect(other.headers.location).toBe('/login?next=%2Faccount');
      expect(other.body.toString()).not.toContain(email);
    }
  });

  it("renders a mailed link's page without using its token up: only the person's explicit post does", async () => {
    const email = uniqueEmail('link');
    const reg = await gw.form('/users/register', { name: 'Link User', email, password: STRONG, password2: STRONG });
    expect((await gw.form('/users/forgot_password', { email })).status).toBe(202);
    const verify = await queuedToken(gw.db.db, email, 'verify_email');
    const reset = await queuedToken(gw.db.db, email, 'reset_password');
    for (const path of [`/verify-email?token=${verify}`, `/reset-password?token=${reset}`]) {
      for (const headers of [{}, { cookie: reg.cookie! }] as Record<string, string>[]) {
        const { res, text } = await page(path, headers);
        expect(res.status, path).toBe(200);
        // The token is the form's, to post without scripts: the page is kept by no cache.
        expect(res.headers['cache-control'], path).toBe('no-store');
        expect(text, path).toContain(`<input type="hidden" name="token" value="${path.split('=')[1]}"/>`);
      }
    }
    const { text } = await page(`/verify-email?token=${verify}`);
    expect(text).toContain('<h1 tabindex="-1">Confirm your email address</h1>');
    // What the link would confirm is asked by the page itself, read-only, as often as it likes.
    const input = encodeURIComponent(JSON.stringify({ token: verify }));
    for (let i = 0; i < 2; i++) {
      const link = await gw.send('GET', `/trpc/email.verificationLink?input=${input}`);
      expect(link.status).toBe(200);
      expect(link.json.result.data).toEqual({ email, realmName: 'Example ID' });
    }
    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).json.user.emailVerified).toBe(
      false,
    );
    // Both links still work, once.
    expect((await gw.form('/users/verify_email', { token: verify })).json).toEqual({ ok: true, emailVerified: true });
    expect((await gw.send('GET', '/users/me', { headers: { cookie: reg.cookie! } })).json.user.emailVerified).toBe(
      true,
    );
    expect((await gw.send('GET', `/trpc/email.verificationLink?input=${input}`)).json.error.data.problem.code).toBe(
      'verify_token_invalid',
    );
    expect(
      (await gw.form('/users/reset_password', { token: reset, new_password: STRONG2, confirm_password: STRONG2 })).json,
    ).toEqual({ ok: true, sessionsRevoked: 1, email });
  });

  it('sends brotli to a browser that accepts gzip and brotli alike, the smaller', async () => {
    const res = await raw('/login', { ...html, 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.body).toString()).toContain('<h1 tabindex="-1">Sign in</h1>');
    const gz = await raw('/login', { ...html, 'accept-encoding': 'br;q=0.5, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });

  it('sends a signed-out page alike to everyone, with nothing of one request in it', async () => {
    // A new address: the first request renders the page, the second is sent the kept one.
    const ask = (userAgent: string) =>
      raw('/register?from=shared-test', { ...html, 'accept-encoding': 'br', 'user-agent': userAgent });
    const [first, second] = [await ask('first browser'), await ask('second browser')];
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
    }
    expect(second.body.equals(first.body)).toBe(true);
    const text = brotliDecompressSync(first.body).toString();
    expect(pageData(text).user).toBeNull();
    expect(text).not.toMatch(/first browser|second browser/);
  });

  it('never sends a signed-in person the signed-out page, nor keeps theirs for others', async () => {
    const email = uniqueEmail('shared');
    const reg = await gw.form('/users/register', { name: 'Signed In', email, password: STRONG, password2: STRONG });
    expect(reg.status).toBe(201);
    // The signed-out page of this address is kept first; then the signed-in person asks for it.
    const path = '/no/such/page?shared=1';
    const before = await page(path);
    expect(pageData(before.text).user).toBeNull();
    const theirs = await page(path, { cookie: reg.cookie! });
    expect(theirs.res.headers['cache-control']).toBe('no-store');
    expect(pageData(theirs.text).user).toMatchObject({ email });
    // Anyone signed out still gets the page without them.
    const after = await page(path);
    expect(after.res.headers['cache-control']).toBe('private, no-cache');
    expect(after.text).not.toContain(email);
    expect(after.res.body.equals(before.res.body)).toBe(true);
  });

  it('serves a new build its own pages, never those an older one rendered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-build-'));
    try {
      mkdirSync(join(dir, 'dist'));
      // The real server build beside a browser build whose index.html differs (as a new build's does).
      symlinkSync(join(WEB_DIST_DIR, '..', 'dist-server'), join(dir, 'dist-server'));
      const index = readFileSync(join(WEB_DIST_DIR, 'index.html'), 'utf8');
      const serverEntry = readFileSync(join(WEB_DIST_DIR, '..', 'dist-server', 'entry-server.js'), 'utf8');
      const built = (name: string) => index.replace('<title>', `<meta name="build" content="${name}" />\n<title>`);
      expect(buildIdOf(built('one'), serverEntry)).not.toBe(buildIdOf(built('two'), serverEntry));
      expect(buildIdOf(index, serverEntry)).not.toBe(buildIdOf(index, `${serverEntry}\n`));
      for (const name of ['one', 'two']) {
        writeFileSync(join(dir, 'dist', 'index.html'), built(name));
        const other = await startGateway('pglite', { SERVE_WEB: 'true', WEB_DIST_DIR: join(dir, 'dist') });
        try {
          const res = await request(`http://127.0.0.1:${other.port}/login`, {
            headers: { host: `localhost:${other.port}`, ...html },
          });
          const text = await res.body.text();
          expect(text).toContain(`<meta name="build" content="${name}" />`);
          expect(text).toContain('<h1 tabindex="-1">Sign in</h1>');
          expect(text).not.toContain(`content="${name === 'one' ? 'two' : 'one'}"`);
        } finally {
          await other.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('escapes what the page takes from the configuration and the realm', async () => {
    const odd = await startGateway('pglite', { SERVE_WEB: 'true', PRODUCT_NAME: '<b>Ben & "Jerry"$&' });
    try {
      const res = await request(`http://127.0.0.1:${odd.port}/login`, {
        headers: { host: `localhost:${odd.port}`, ...html },
      });
      const text = await res.body.text();
      expect(text).toContain('<a href="/" class="product-name">&lt;b&gt;Ben &amp; &quot;Jerry&quot;$&amp;</a>');
      expect(text).toContain('<title>Sign in · &#60;b&#62;Ben &#38; &#34;Jerry&#34;$&#38;</title>');
      expect(text).not.toContain('<b>');
      expect(pageData(text).settings.productName).toBe('<b>Ben & "Jerry"$&');
    } finally {
      await odd.close();
    }
  });

  it('answers a post to a page only for a form of that page, and never sends anyone to another host', async () => {
    const post = (path: string, body: string) =>
      gw.send('POST', path, {
        headers: {
          accept: 'text/html',
          'content-type': 'application/x-www-form-urlencoded',
          origin: `http://localhost:${gw.port}`,
        },
        body,
      });
    // No `_form`, or one the page does not have: nothing is done.
    const credentials = `email=a%40example.com&password=${encodeURIComponent(STRONG)}`;
    for (const path of ['/login?next=%2Fsettings', '//evil.example/login', '/\\evil.example']) {
      const res = await post(path, credentials);
      expect(res.status, path).toBe(404);
      expect(res.headers.location, path).toBeUndefined();
    }
    // A path that starts like another host's is this site's page: the sign-in happens here, and leads here.
    const email = uniqueEmail('page-host');
    await gw.form('/users/register', { name: 'Host', email, password: STRONG, password2: STRONG });
    const signIn = await post(
      '//evil.example/login',
      `_form=signIn&email=${encodeURIComponent(email)}&password=${encodeURIComponent(STRONG)}`,
    );
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/account');
    // An absolute-form target is the path it names on this host, and refused when it names another.
    const absolute = (target: string) =>
      rawRequest(
        gw.port,
        `POST ${target} HTTP/1.1\r\nHost: localhost:${gw.port}\r\nAccept: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
    expect((await absolute(`http://localhost:${gw.port}//evil.example/login`)).head).not.toMatch(/^location:/im);
    for (const target of ['http://evil.example/x', 'https://evil.example//x']) {
      const res = await absolute(target);
      expect(res.status, target).toBe(400);
      expect(res.head, target).not.toMatch(/^location:/im);
    }
  });

  it('has a favicon, so browsers get no 404 on every load', async () => {
    const res = await raw('/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const index = (await raw('/login', html)).body.toString();
    expect(index).toContain('<link rel="icon" href="/favicon.svg"');
  });

  it('sends password managers from /.well-known/change-password to the settings page', async () => {
    const res = await raw('/.well-known/change-password');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/settings');
    const acme = await raw('/.well-known/change-password', { host: `acme.localhost:${gw.port}` });
    expect(acme.status).toBe(302);
    expect(acme.headers.location).toBe('/settings');
  });

  it('names the product as configured in the settings the web app reads', async () => {
    const res = await raw('/trpc/account.settings');
    expect(JSON.parse(res.body.toString()).result.data.productName).toBe('Example ID');
  });

  it('keeps API answers out of the page fallback, whatever the form of the path', async () => {
    for (const path of ['/trpc/no.such', '/%74rpc/no.such', '/%75sers/nope']) {
      const res = await raw(path, html);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toMatch(/json/);
      expect(res.headers['cache-control'], path).toBe('no-store');
    }
    // Media types are case-insensitive: a browser's TEXT/HTML asks for the page too.
    const shouted = await raw('/login', { accept: 'TEXT/HTML' });
    expect(shouted.headers['content-type']).toMatch(/^text\/html/);
  });
});
