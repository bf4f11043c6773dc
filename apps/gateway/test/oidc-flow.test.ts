import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { createRealm, createVault, disableAccount, findRealm, parseSecretKey, rotateSigningKeys } from '@accounts/api';
import { oidcArtifacts, oidcClients, passkeys, users } from '@accounts/db';
import { SoftAuthenticator, testDrivers, uniqueEmail } from '@accounts/testing';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG, TEST_SECRET_KEY, type Gateway } from './support/gateway.js';
import {
  authorizationRequest,
  Browser,
  exchange,
  issuerOf,
  relyingParty,
  signInToApp,
  startOidcGateway,
} from './support/oidc.js';
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

    // Forwarded headers from a proxy the gateway does not trust change nothing the provider says.
    const forwarded = await gw.send('GET', '/.well-known/openid-configuration', {
      host: 'localhost',
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(forwarded.json.issuer).toBe(issuerOf(gw));
    expect(forwarded.json.token_endpoint).toBe(`${issuerOf(gw)}/oauth2/token`);
    for (const host of ['nope.localhost', 'evil.example']) {
      const forged = await gw.send('GET', '/.well-known/openid-configuration', { host });
      expect(forged.status).toBe(404);
      expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(forged.json.code).toBe('realm_not_found');
      expect(forged.text).not.toContain(host);
    }
  });

  it('answers addresses under /oauth2/ that name no endpoint, or a method one does not take, as problems', async () => {
    for (const [method, path] of [
      ['GET', '/oauth2/nope'],
      ['GET', '/oauth2/token'],
      ['DELETE', '/oauth2/token'],
      ['GET', '/oauth2/interaction/unknown'],
    ] as const) {
      const res = await gw.send(method, path, { host: 'localhost' });
      expect(res.headers['content-type'], `${method} ${path}`).toMatch(/^application\/problem\+json/);
      expect(res.json.code).toBe(path.includes('interaction') ? 'interaction_expired' : 'not_found');
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
    // The used token presented again at once (a lost response) gets the same successor; past the
    // grace period it is a reuse that revokes the grant (the rotation test below).
    expect((await oidc.refreshTokenGrant(rp.config, withRefresh.refresh_token!)).refresh_token).toBe(
      refreshed.refresh_token,
    );

    // A code is used once.
    await expect(exchange(rp, allowed.url, first)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  /** A browser signed in to the realm with a new account: its email. */
  async function signedIn(browser: Browser, realm = 'default') {
    const email = uniqueEmail('oidc');
    await browser.register(issuerOf(gw, realm), email);
    return email;
  }

  const callbackParams = (url: string) => Object.fromEntries(new URL(url).searchParams);

  it('skips consent for a first-party app; Deny answers access_denied at the redirect URI', async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    await signedIn(browser);
    const { callback, req } = await signInToApp(browser, own);
    expect((await exchange(own, callback, req)).claims()?.amr).toEqual(['pwd']);

    const other = await relyingParty(gw);
    const ask = await authorizationRequest(other);
    const page = await browser.follow(ask.url.href);
    expect(page.res.status).toBe(200);
    const action = new URL(/action="([^"]+)"/.exec(page.res.text)![1]!, page.url).href;
    const denied = await browser.follow(action, await browser.send('POST', action, { decision: 'deny' }));
    expect(callbackParams(denied.url)).toMatchObject({ error: 'access_denied', state: ask.state });
    // The interaction is over: its page now says so, as a problem (never a 500).
    const over = await browser.send('GET', page.url);
    expect(over.status).toBe(400);
    expect(over.json.code).toBe('interaction_expired');
  });

  it('never lets one account consent for another: a session that changed at the consent step sends the app back', async () => {
    const rp = await relyingParty(gw);
    const browser = new Browser(gw);
    await signedIn(browser);
    const ask = await authorizationRequest(rp);
    const page = await browser.follow(ask.url.href);
    expect(page.res.text).toContain('name="decision"');
    // Another account signs in in this browser meanwhile.
    await signedIn(browser);
    const posted = await browser.follow(page.url, await browser.send('POST', page.url, { decision: 'allow' }));
    expect(callbackParams(posted.url)).toMatchObject({ error: 'login_required', state: ask.state });
  });

  it('refuses plain PKCE and a missing challenge; a code needs its verifier', async () => {
    const rp = await relyingParty(gw);
    const browser = new Browser(gw);
    await signedIn(browser);
    const base = {
      client_id: rp.clientId,
      redirect_uri: rp.redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 's1',
    };
    const auth = (extra: Record<string, string>) =>
      browser.send('GET', `${issuerOf(gw)}/oauth2/auth?${new URLSearchParams({ ...base, ...extra }).toString()}`);
    const refused: Record<string, string>[] = [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }];
    for (const extra of refused) {
      const res = await auth(extra);
      expect(res.status).toBe(303);
      expect(callbackParams(String(res.headers.location))).toMatchObject({ error: 'invalid_request', state: 's1' });
    }
    // Implicit and hybrid flows are not offered.
    const implicit = await auth({ response_type: 'id_token', nonce: 'n' });
    expect(implicit.status).toBe(303);
    expect(String(implicit.headers.location)).toContain('error=unsupported_response_type');

    const own = await relyingParty(gw, 'default', { firstParty: true });
    const { callback, req } = await signInToApp(browser, own);
    await expect(exchange(own, callback, { ...req, verifier: `${req.verifier}x` })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('keeps realms apart: a token of one realm is refused by another', async () => {
    const acme = await relyingParty(gw, 'acme', { firstParty: true });
    const browser = new Browser(gw);
    await signedIn(browser, 'acme');
    const { callback, req } = await signInToApp(browser, acme);
    const tokens = await exchange(acme, callback, req);
    const userinfo = (host: string) =>
      gw.send('GET', '/oauth2/userinfo', { host, headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo('acme.localhost')).status).toBe(200);
    const elsewhere = await userinfo('localhost');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.json.error).toBe('invalid_token');
    // The default realm's app introspecting it learns nothing.
    const local = await relyingParty(gw, 'default');
    expect((await oidc.tokenIntrospection(local.config, tokens.access_token)).active).toBe(false);
    // The acme app does not exist in the default realm.
    const token = await gw.form(
      '/oauth2/token',
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: acme.clientId, client_secret: acme.clientSecret! },
      { host: 'localhost' },
    );
    expect(token.status).toBe(401);
    expect(token.json.error).toBe('invalid_client');
  });

  it('answers prompt=none at the redirect URI: login_required, consent_required', async () => {
    const rp = await relyingParty(gw);
    const browser = new Browser(gw);
    const none = await authorizationRequest(rp, { prompt: 'none' });
    const signedOut = await browser.follow(none.url.href);
    expect(callbackParams(signedOut.url)).toMatchObject({ error: 'login_required', state: none.state });
    await signedIn(browser);
    // Signed in to one app (the provider's session begins), prompt=none to another that was never
    // allowed: consent_required.
    const own = await relyingParty(gw, 'default', { firstParty: true });
    await signInToApp(browser, own);
    const again = await authorizationRequest(rp, { prompt: 'none' });
    const noConsent = await browser.follow(again.url.href);
    expect(callbackParams(noConsent.url)).toMatchObject({ error: 'consent_required', state: again.state });
    const silent = await authorizationRequest(own, { prompt: 'none' });
    expect(callbackParams((await browser.follow(silent.url.href)).url).code).toEqual(expect.any(String));
    // After signing out here, the provider's session no longer counts either.
    expect((await browser.send('POST', `${issuerOf(gw)}/users/logout`, {})).status).toBe(200);
    const after = await authorizationRequest(own, { prompt: 'none' });
    expect(callbackParams((await browser.follow(after.url.href)).url).error).toBe('login_required');
  });

  it('asks for a new sign-in on prompt=login and an old max_age, and accepts only one newer than the request', async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    const email = await signedIn(browser);
    await new Promise((r) => setTimeout(r, 2100));
    const fresh: Record<string, string>[] = [{ prompt: 'login' }, { max_age: '1' }];
    for (const params of fresh) {
      const req = await authorizationRequest(own, params);
      const toLogin = await browser.follow(req.url.href);
      const login = new URL(String(toLogin.res.headers.location), toLogin.url);
      expect(login.pathname).toBe('/login');
      expect(login.searchParams.get('prompt')).toBe('login');
      const next = new URL(login.searchParams.get('next')!, issuerOf(gw)).href;
      // The same session coming back is sent to sign in again.
      expect((await browser.follow(next)).url).toMatch(/\/login\?/);
      const before = Math.floor(Date.now() / 1000);
      const signIn = await browser.send('POST', `${issuerOf(gw)}/users/login`, { email, password: STRONG });
      expect(signIn.status, signIn.text).toBe(200);
      const done = await browser.follow(next);
      const tokens = await exchange(own, done.url, req);
      expect(tokens.claims()!.auth_time).toBeGreaterThanOrEqual(before);
      await new Promise((r) => setTimeout(r, 2100));
    }
  });

  it("tells the app of an account's second step: amr pwd, otp, mfa", async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    const email = uniqueEmail('2fa');
    const reg = await browser.register(issuerOf(gw), email);
    const { app } = await turnOnTwoStep(gw, { cookie: reg.cookie! });
    // A new browser signs in with the password, then the code.
    const other = new Browser(gw);
    const first = await other.send('POST', `${issuerOf(gw)}/users/login`, { email, password: STRONG });
    expect(first.status).toBe(401);
    const second = await other.send('POST', `${issuerOf(gw)}/users/login/second_factor`, { code: await app.next() });
    expect(second.status, second.text).toBe(200);
    const { callback, req } = await signInToApp(other, own);
    const claims = (await exchange(own, callback, req)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('https://refeds.org/profile/mfa');
  });

  it('logs out from the app (RP-initiated logout): a confirmation form, then the registered post-logout address', async () => {
    const own = await relyingParty(gw, 'default', {
      firstParty: true,
      postLogoutRedirectUris: ['http://127.0.0.1:9/bye'],
    });
    const browser = new Browser(gw);
    await signedIn(browser);
    const { callback, req } = await signInToApp(browser, own);
    const tokens = await exchange(own, callback, req);
    const end = oidc.buildEndSessionUrl(own.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:9/bye',
      state: 'bye1',
    });
    const page = await browser.send('GET', end.href);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    // Our page, in the person's language, working without scripts: the buttons submit the provider's form.
    expect(page.headers['content-language']).toBe('en');
    expect(page.text).toContain('<h1>Sign out?</h1>');
    expect(page.text).toContain(
      '<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>',
    );
    const form = /<form [^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.text)!;
    const fields = Object.fromEntries(
      [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const confirm = new URL(form[1]!, end).href;
    const done = await browser.follow(confirm, await browser.send('POST', confirm, { ...fields, logout: 'yes' }));
    expect(done.url).toBe('http://127.0.0.1:9/bye?state=bye1');
    // An unregistered post-logout address is refused.
    const other = oidc.buildEndSessionUrl(own.config, { post_logout_redirect_uri: 'https://evil.example/' });
    expect((await browser.send('GET', other.href)).status).toBe(400);
  });

  it('rotates a refresh token to one successor: repeats within 10 s get that same one, a reuse after revokes the grant', async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    await signedIn(browser);
    const { callback, req } = await signInToApp(browser, own, { scope: 'openid offline_access', prompt: 'consent' });
    const { refresh_token: refreshToken } = await exchange(own, callback, req);
    // Five refreshes at once with one token: every one is answered, all with the same successor.
    const results = await Promise.all(
      Array.from({ length: 5 }, () => oidc.refreshTokenGrant(own.config, refreshToken!)),
    );
    const successors = new Set(results.map((r) => r.refresh_token));
    expect(successors.size).toBe(1);
    const [successor] = [...successors];
    expect(successor).not.toBe(refreshToken);
    // A lost response: the rotated token presented again, within the grace period, gets it too.
    expect((await oidc.refreshTokenGrant(own.config, refreshToken!)).refresh_token).toBe(successor);
    // The successor works, and rotates in turn.
    const next = await oidc.refreshTokenGrant(own.config, successor!);
    expect(next.refresh_token).not.toBe(successor);
    // Past the grace period (its consumption moved 11 s back), the rotated token is a reuse: the
    // grant is revoked with every token of it, the live successor and access token included.
    await gw.db.db
      .update(oidcArtifacts)
      .set({ consumedAt: sql`now() - interval '11 seconds'` })
      .where(
        and(
          eq(oidcArtifacts.kind, 'RefreshToken'),
          eq(oidcArtifacts.clientId, own.clientId),
          isNotNull(oidcArtifacts.consumedAt),
        ),
      );
    await expect(oidc.refreshTokenGrant(own.config, refreshToken!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(own.config, next.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await oidc.tokenIntrospection(own.config, next.access_token)).active).toBe(false);
  });

  it('rotates the signing key while tokens are live: the old ID token still verifies, new ones use the new key', async () => {
    await createRealm(gw.db.db, 'rotation', 'Rotation');
    const rp = await relyingParty(gw, 'rotation', { firstParty: true });
    const browser = new Browser(gw);
    await signedIn(browser, 'rotation');
    const { callback, req } = await signInToApp(browser, rp, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await exchange(rp, callback, req);
    const kidOf = (jwt: string) =>
      (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
    const oldKid = kidOf(tokens.id_token!);
    const vault = createVault(parseSecretKey(TEST_SECRET_KEY)!);
    const { kid: newKid } = await rotateSigningKeys(gw.db.db, vault, 'rotation');
    // The JWKS publishes both at once; the old key still verifies what it signed.
    const jwks = (await gw.send('GET', '/oauth2/jwks', { host: 'rotation.localhost' })).json as {
      keys: (JsonWebKey & { kid: string; d?: string })[];
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    const [head, body, sig] = tokens.id_token!.split('.');
    const oldKey = createPublicKey({ key: jwks.keys.find((k) => k.kid === oldKid)!, format: 'jwk' });
    expect(verify('RSA-SHA256', Buffer.from(`${head}.${body}`), oldKey, Buffer.from(sig!, 'base64url'))).toBe(true);
    // The live access and refresh tokens keep working; what is signed from now on uses the new key.
    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(true);
    const refreshed = await oidc.refreshTokenGrant(rp.config, tokens.refresh_token!);
    expect(kidOf(refreshed.id_token!)).toBe(newKid);
    expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);
  });

  it("stops a disabled account's tokens: introspection inactive, userinfo 401, no refresh", async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    const email = await signedIn(browser);
    const { callback, req } = await signInToApp(browser, own, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await exchange(own, callback, req);
    expect((await oidc.tokenIntrospection(own.config, tokens.access_token)).active).toBe(true);
    await disableAccount(gw.db.db, 'default', email, {
      cap: { requested: 0, caused: 0, windowMs: 1 },
      originOf: () => issuerOf(gw),
      serviceName: 'Accounts',
    });
    expect((await oidc.tokenIntrospection(own.config, tokens.access_token)).active).toBe(false);
    const info = await gw.send('GET', '/oauth2/userinfo', {
      host: 'localhost',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    await expect(oidc.refreshTokenGrant(own.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('tells the app of a passkey sign-in: amr hwk or swk, as the passkey is bound to its device or synced', async () => {
    const own = await relyingParty(gw, 'default', { firstParty: true });
    const origin = issuerOf(gw);
    const browser = new Browser(gw);
    const email = uniqueEmail('pk');
    await browser.register(origin, email);
    const authenticator = new SoftAuthenticator();
    const options = await browser.postJson(`${origin}/users/passkeys/register/options`, {});
    expect(options.status, options.text).toBe(200);
    const added = await browser.postJson(`${origin}/users/passkeys/register`, {
      response: authenticator.create(options.json, origin),
    });
    expect(added.status, added.text).toBe(201);
    // Another browser signs in with the passkey alone.
    const other = new Browser(gw);
    const asked = await other.postJson(`${origin}/users/passkeys/login/options`, {});
    const signIn = await other.postJson(`${origin}/users/passkeys/login`, {
      response: authenticator.get(asked.json, origin),
    });
    expect(signIn.status, signIn.text).toBe(200);
    const { callback, req } = await signInToApp(other, own);
    const claims = (await exchange(own, callback, req)).claims()!;
    const [passkey] = await gw.db.db
      .select()
      .from(passkeys)
      .where(eq(passkeys.userId, (await subjectOf(email)).id));
    expect(claims.amr).toEqual([passkey!.deviceType === 'multiDevice' || passkey!.backedUp ? 'swk' : 'hwk']);
    expect(claims.acr).toBe('https://refeds.org/profile/sfa');
  });

  it('refuses an app whose stored address breaks the https-or-loopback rule, without a 500', async () => {
    const realm = (await findRealm(gw.db.db, 'default'))!.id;
    await gw.db.db.insert(oidcClients).values({
      realmId: realm,
      clientId: 'plain-http-app',
      name: 'Plain',
      secretDigest: null,
      redirectUris: ['http://app.example/cb'],
      public: true,
    });
    const res = await gw.send(
      'GET',
      `/oauth2/auth?${new URLSearchParams({ client_id: 'plain-http-app', redirect_uri: 'http://app.example/cb', response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString()}`,
      { host: 'localhost' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).not.toMatch(/at .*\.js:\d+/);
  });

  it('never logs a code, a token, a client secret or an Authorization header', async () => {
    const rp = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    await signedIn(browser);
    const { callback, req } = await signInToApp(browser, rp, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await exchange(rp, callback, req);
    await oidc.refreshTokenGrant(rp.config, tokens.refresh_token!);
    await oidc.fetchUserInfo(rp.config, tokens.access_token, oidc.skipSubjectCheck);
    const log = gw.logs.join('\n');
    const code = new URL(callback).searchParams.get('code')!;
    for (const secret of [code, tokens.access_token, tokens.refresh_token!, rp.clientSecret!, req.verifier])
      expect(log).not.toContain(secret);
    expect(log).not.toMatch(/"authorization"|basic [a-z0-9+/=]{8,}/i);
    expect(log).toContain('"path":"/oauth2/token"');
    // Nothing any test of this file did failed on the server's side.
    expect(gw.logs.filter((l) => /provider failed|request failed/.test(l))).toEqual([]);
  });
});
