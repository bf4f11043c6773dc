import { oidcClients, users } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG, type Gateway } from './support/gateway.js';
import { authorizationRequest, Browser, exchange, issuerOf, relyingParty, startOidcGateway } from './support/oidc.js';
import { turnOnTwoStep } from './support/two-step.js';

// The OpenID Connect provider of each realm over real HTTP, with openid-client as the app and a
// browser without scripts signing in on our own pages with its session cookie.
describe.each(testDrivers())('the OpenID Connect provider on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startOidcGateway(driver);
  });
  afterAll(() => gw?.close());

  const subjectOf = async (email: string) => (await gw.db.db.select().from(users).where(eq(users.email, email)))[0]!;

  /** Signs in to the app: authorize, our pages (consent allowed when asked), back at the app with a code. */
  async function signInToApp(
    browser: Browser,
    rp: Awaited<ReturnType<typeof relyingParty>>,
    params: Record<string, string> = {},
  ) {
    const req = await authorizationRequest(rp, params);
    let { res, url } = await browser.follow(req.url.href);
    if (res.status === 200 && res.text.includes('name="decision"')) {
      const action = new URL(/action="([^"]+)"/.exec(res.text)![1]!, url).href;
      ({ res, url } = await browser.follow(action, await browser.send('POST', action, { decision: 'allow' })));
    }
    expect(url, res.text).toMatch(new RegExp(`^${rp.redirectUri}\\?`));
    return { req, callback: url };
  }

  it('publishes one discovery document per realm, its issuer from configuration; a Host naming no realm gets 404', async () => {
    for (const realm of ['default', 'acme']) {
      const issuer = issuerOf(gw, realm);
      const host = new URL(issuer).hostname;
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const res = await gw.send('GET', path, { host });
        expect(res.status, res.text).toBe(200);
        expect(res.json).toMatchObject({
          issuer,
          authorization_endpoint: `${issuer}/oauth2/auth`,
          token_endpoint: `${issuer}/oauth2/token`,
          jwks_uri: `${issuer}/oauth2/jwks`,
          userinfo_endpoint: `${issuer}/oauth2/userinfo`,
          revocation_endpoint: `${issuer}/oauth2/revoke`,
          introspection_endpoint: `${issuer}/oauth2/introspect`,
          end_session_endpoint: `${issuer}/oauth2/logout`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        });
        expect(res.json.registration_endpoint).toBeUndefined();
        expect(res.json.scopes_supported).toEqual(
          expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']),
        );
      }
      // The JWKS holds public keys only.
      const jwks = await gw.send('GET', '/oauth2/jwks', { host });
      expect(jwks.status).toBe(200);
      expect(jwks.json.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      for (const key of jwks.json.keys)
        for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key[part]).toBeUndefined();
    }
    // Another realm's keys are its own.
    const a = await gw.send('GET', '/oauth2/jwks', { host: 'localhost' });
    const b = await gw.send('GET', '/oauth2/jwks', { host: 'acme.localhost' });
    expect(a.json.keys[0].kid).not.toBe(b.json.keys[0].kid);

    for (const host of ['nope.localhost', 'evil.example']) {
      const forged = await gw.send('GET', '/.well-known/openid-configuration', { host });
      expect(forged.status).toBe(404);
      expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(forged.json.code).toBe('realm_not_found');
      expect(forged.text).not.toContain(host);
    }
  });

  it('completes the code flow with PKCE through our sign-in and consent: ID token, userinfo, refresh rotation, revocation, introspection', async () => {
    const rp = await relyingParty(gw, 'acme');
    const browser = new Browser(gw);
    const email = uniqueEmail('rp');
    const origin = issuerOf(gw, 'acme');

    // Not signed in: the sign-in page, which comes back to the interaction.
    const first = await authorizationRequest(rp);
    const toLogin = await browser.follow(first.url.href);
    expect(toLogin.res.status).toBe(303);
    const login = new URL(String(toLogin.res.headers.location), toLogin.url);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('next')).toMatch(/^\/oauth2\/interaction\/[\w-]+$/);

    await browser.register(origin, email);
    // Back at the interaction with the session: the consent page names the app and what it asks.
    const consent = await browser.follow(new URL(login.searchParams.get('next')!, origin).href);
    expect(consent.res.status, consent.res.text).toBe(200);
    expect(consent.res.headers['content-type']).toMatch(/^text\/html/);
    expect(consent.res.text).toContain('Test App');
    expect(consent.res.text).toContain('see your email address');
    expect(consent.res.text).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
    expect(consent.res.text).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/);
    const action = new URL(/action="([^"]+)"/.exec(consent.res.text)![1]!, consent.url).href;
    // A cross-origin post of the form is refused.
    const forged = await gw.form(
      new URL(action).pathname,
      { decision: 'allow' },
      {
        host: 'acme.localhost',
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      },
    );
    expect(forged.status).toBe(403);
    const allowed = await browser.follow(action, await browser.send('POST', action, { decision: 'allow' }));
    expect(allowed.url).toMatch(new RegExp(`^${rp.redirectUri}\\?`));

    const tokens = await exchange(rp, allowed.url, first);
    const user = await subjectOf(email);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: origin,
      aud: rp.clientId,
      sub: user.subject,
      nonce: first.nonce,
      amr: ['pwd'],
    });
    expect(claims.sub).not.toBe(user.id);
    expect(claims.sub).not.toContain('@');
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect(claims.sid).toEqual(expect.any(String));
    expect(claims.acr).toBe('https://refeds.org/profile/sfa');
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    // Without offline_access there is no refresh token.
    expect(tokens.refresh_token).toBeUndefined();

    const info = await oidc.fetchUserInfo(rp.config, tokens.access_token, user.subject);
    expect(info).toMatchObject({ sub: user.subject, name: 'Test User', email, email_verified: false, locale: 'en' });

    // Introspection (a confidential app) and revocation.
    const live = await oidc.tokenIntrospection(rp.config, tokens.access_token);
    expect(live).toMatchObject({ active: true, sub: user.subject, client_id: rp.clientId });
    await oidc.tokenRevocation(rp.config, tokens.access_token);
    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(false);
    await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, user.subject)).rejects.toThrow();

    // The consent is remembered: the next sign-in to the app asks nothing.
    const again = await authorizationRequest(rp, { scope: 'openid email' });
    const back = await browser.follow(again.url.href);
    expect(back.url).toMatch(new RegExp(`^${rp.redirectUri}\\?code=`));

    // offline_access with prompt=consent: a refresh token, rotated at every use.
    const offline = await signInToApp(browser, rp, { scope: 'openid offline_access', prompt: 'consent' });
    const withRefresh = await exchange(rp, offline.callback, offline.req);
    expect(withRefresh.refresh_token).toEqual(expect.any(String));
    const refreshed = await oidc.refreshTokenGrant(rp.config, withRefresh.refresh_token!);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(withRefresh.refresh_token);
    expect(refreshed.claims()?.sub).toBe(user.subject);
    // The used token is refused, and with it the whole grant (reuse detection): its successor too.
    await expect(oidc.refreshTokenGrant(rp.config, withRefresh.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.refreshTokenGrant(rp.config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // A code is used once.
    await expect(exchange(rp, allowed.url, first)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
