import { uniqueEmail } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG, type Gateway } from './support/gateway.js';
import { authorizationRequest, Browser, exchange, issuerOf, relyingParty, startOidcGateway } from './support/oidc.js';

// A sign-in to an app through the realm's real sign-in page (the web app's server render),
// posted as a form without scripts, as a browser with scripts off does it.
describe('a sign-in to an app through the sign-in page, without scripts', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startOidcGateway('pglite', { SERVE_WEB: 'true', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  /** The sign-in page's form posted with the fields a person types. */
  async function postSignIn(browser: Browser, page: { res: { text: string }; url: string }, email: string) {
    const action = /<form [^>]*action="([^"]+)"[^>]*method="post"/.exec(page.res.text)?.[1]?.replace(/&amp;/g, '&');
    expect(action, page.res.text.slice(0, 500)).toBeDefined();
    const url = new URL(action!, page.url).href;
    return browser.follow(url, await browser.send('POST', url, { _form: 'signIn', email, password: STRONG }));
  }

  it('signs in on the page and lands back at the app; prompt=login shows the form to a signed-in browser', async () => {
    const rp = await relyingParty(gw, 'default', { firstParty: true });
    const setup = new Browser(gw);
    const email = uniqueEmail('page');
    await setup.register(issuerOf(gw), email);

    const browser = new Browser(gw);
    const req = await authorizationRequest(rp);
    const toLogin = await browser.follow(req.url.href);
    const login = await browser.send('GET', toLogin.url);
    expect(login.status).toBe(200);
    // Its form leads (through redirects) to the app: no form-action limits it; the plain page keeps one.
    expect(login.headers['content-security-policy']).not.toMatch(/form-action/);
    expect((await browser.send('GET', `${issuerOf(gw)}/login`)).headers['content-security-policy']).toMatch(
      /form-action 'self'/,
    );
    expect(login.text).toContain('name="password"');
    const back = await postSignIn(browser, { res: login, url: toLogin.url }, email);
    expect(back.url, back.res.text.slice(0, 300)).toMatch(new RegExp(`^${rp.redirectUri}\\?code=`));
    expect((await exchange(rp, back.url, req)).claims()?.amr).toEqual(['pwd']);

    // Signed in, the sign-in page sends the browser on; with prompt=login it asks again.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await authorizationRequest(rp, { prompt: 'login' });
    const fresh = await browser.follow(again.url.href);
    expect(new URL(fresh.url).searchParams.get('prompt')).toBe('login');
    const page = await browser.send('GET', fresh.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="password"');
    const done = await postSignIn(browser, { res: page, url: fresh.url }, email);
    expect(done.url).toMatch(new RegExp(`^${rp.redirectUri}\\?code=`));
    await exchange(rp, done.url, again);
  });
});

// Behind a trusted proxy the realm comes from X-Forwarded-Host; the issuer still from configuration.
describe('the provider behind a trusted proxy', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startOidcGateway('pglite', { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => gw?.close());

  it("answers the forwarded host's realm with its configured issuer; a forwarded host naming no realm is 404", async () => {
    const discovery = (forwardedHost: string, proto = 'https') =>
      gw.send('GET', '/.well-known/openid-configuration', {
        host: 'localhost',
        headers: { 'x-forwarded-host': forwardedHost, 'x-forwarded-proto': proto },
      });
    const acme = await discovery(`acme.localhost:${gw.port}`);
    expect(acme.status).toBe(200);
    expect(acme.json.issuer).toBe(issuerOf(gw, 'acme'));
    expect(acme.json.userinfo_endpoint).toBe(`${issuerOf(gw, 'acme')}/oauth2/userinfo`);
    const forged = await discovery('evil.example');
    expect(forged.status).toBe(404);
    expect(forged.json.code).toBe('realm_not_found');
    expect(forged.text).not.toContain('evil.example');
  });
});
