import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { revokeAccountSessions } from '@accounts/api';
import { oidcLogouts } from '@accounts/db';
import { freePort, testDrivers, uniqueEmail } from '@accounts/testing';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG, STRONG2, type Gateway } from './support/gateway.js';
import { authorizationRequest, Browser, exchange, issuerOf, relyingParty, startOidcGateway } from './support/oidc.js';

// Signing out reaches the apps (OpenID Connect Back-Channel Logout 1.0): when a session here
// ends, for any reason, each app it signed in to that registered a back-channel logout URI gets
// a signed logout token, and the tokens bound to that session stop working at once, on every
// gateway. A real HTTP receiver on loopback plays the apps' back ends.

interface Received {
  path: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signed: string;
  signature: Buffer;
}

/** The apps' back ends: each POST's logout token, decoded (verified against the JWKS by the test). */
async function logoutReceiver() {
  const received: Received[] = [];
  const port = await freePort();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token') ?? '';
      const [h = '', p = '', sig = ''] = token.split('.');
      const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;
      received.push({
        path: req.url ?? '',
        header: json(h),
        claims: json(p),
        signed: `${h}.${p}`,
        signature: Buffer.from(sig, 'base64url'),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    uri: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    async waitFor(path: string, count = 1, ms = 8000) {
      const until = Date.now() + ms;
      while (received.filter((r) => r.path === path).length < count && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      return received.filter((r) => r.path === path);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(testDrivers())('back-channel logout on %s', (driver) => {
  let gw: Gateway;
  let second: Gateway;
  let receiver: Awaited<ReturnType<typeof logoutReceiver>>;
  beforeAll(async () => {
    receiver = await logoutReceiver();
    gw = await startOidcGateway(driver, { ALLOW_PRIVATE_OUTBOUND: 'true' });
    // A second gateway of the same deployment: same database, same public origin.
    second = await startOidcGateway(driver, { ALLOW_PRIVATE_OUTBOUND: 'true', PUBLIC_PORT: String(gw.port) }, gw);
  });
  afterAll(async () => {
    await second?.close();
    await gw?.close();
    await receiver?.close();
  });

  /** An app with a back-channel logout URI, and a browser signed in to it: its tokens and ID token claims. */
  async function signedInApp(path: string, browser = new Browser(gw), email?: string) {
    const rp = await relyingParty(gw, 'default', { firstParty: true, backchannelLogoutUri: receiver.uri(path) });
    if (email === undefined) await browser.register(issuerOf(gw), uniqueEmail('bcl'));
    const req = await authorizationRequest(rp);
    const { url } = await browser.follow(req.url.href);
    const tokens = await exchange(rp, url, req);
    return { rp, browser, tokens, idClaims: tokens.claims()! };
  }

  /** Whether the logout token is what the specification asks, signed by a key of the realm's JWKS. */
  async function expectLogoutToken(got: Received, rp: { clientId: string }, idClaims: Record<string, unknown>) {
    expect(got.header).toMatchObject({ typ: 'logout+jwt', alg: 'RS256' });
    expect(got.claims).toMatchObject({
      iss: issuerOf(gw),
      aud: rp.clientId,
      sub: idClaims.sub,
      sid: idClaims.sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    expect(got.claims.nonce).toBeUndefined();
    expect(got.claims.jti).toEqual(expect.any(String));
    const jwks = (await gw.send('GET', '/oauth2/jwks', { host: 'localhost' })).json as { keys: JsonWebKey[] };
    const key = jwks.keys.find((k) => (k as { kid?: string }).kid === got.header.kid)!;
    expect(key).toBeDefined();
    expect(verify('RSA-SHA256', Buffer.from(got.signed), createPublicKey({ key, format: 'jwk' }), got.signature)).toBe(
      true,
    );
  }

  /** Whether an access token is dead on both gateways: introspection inactive, userinfo 401. */
  async function expectDead(rp: { config: oidc.Configuration }, accessToken: string) {
    expect((await oidc.tokenIntrospection(rp.config, accessToken)).active).toBe(false);
    for (const g of [gw, second]) {
      const info = await g.send('GET', '/oauth2/userinfo', {
        host: 'localhost',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(info.status).toBe(401);
    }
  }

  it('tells the app when the person signs out here: a signed logout token, the tokens dead on every gateway at once', async () => {
    const { rp, browser, tokens, idClaims } = await signedInApp('/signout');
    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(true);
    const out = await browser.send('POST', `${issuerOf(gw)}/users/logout`, {});
    expect(out.status).toBe(200);
    // No wait: the session's tokens died with it, in the same transaction.
    await expectDead(rp, tokens.access_token);
    await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token ?? 'none')).rejects.toThrow();
    const [got] = await receiver.waitFor('/signout');
    await expectLogoutToken(got!, rp, idClaims);
    expect(await gw.db.db.select().from(oidcLogouts)).toEqual([]);
  });

  it('tells the app when another session changes the password, and when an operator ends the sessions', async () => {
    const email = uniqueEmail('bcl');
    const first = new Browser(gw);
    await first.register(issuerOf(gw), email);
    const app = await signedInApp('/password', first, email);
    // The person signs in elsewhere and changes the password there: the first session ends.
    const other = new Browser(gw);
    await other.send('POST', `${issuerOf(gw)}/users/login`, { email, password: STRONG });
    const changed = await other.send('POST', `${issuerOf(gw)}/users/change_password`, {
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(changed.status, changed.text).toBe(200);
    await expectDead(app.rp, app.tokens.access_token);
    const [got] = await receiver.waitFor('/password');
    await expectLogoutToken(got!, app.rp, app.idClaims);

    // The operator's revoke-sessions (npm run account -- revoke-sessions) ends the second one.
    const again = await signedInApp('/operator', other, email);
    expect(await revokeAccountSessions(gw.db.db, 'default', email)).toBeGreaterThanOrEqual(1);
    await expectDead(again.rp, again.tokens.access_token);
    const [byOperator] = await receiver.waitFor('/operator');
    await expectLogoutToken(byOperator!, again.rp, again.idClaims);
  });

  it('ends the session here on a logout started by an app, and tells the other apps it signed in to', async () => {
    const first = await signedInApp('/rp-first');
    const rpOther = await relyingParty(gw, 'default', {
      firstParty: true,
      backchannelLogoutUri: receiver.uri('/rp-other'),
      postLogoutRedirectUris: ['http://127.0.0.1:9/bye'],
    });
    const req = await authorizationRequest(rpOther);
    const { url } = await first.browser.follow(req.url.href);
    const otherTokens = await exchange(rpOther, url, req);
    const end = oidc.buildEndSessionUrl(rpOther.config, {
      id_token_hint: otherTokens.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:9/bye',
    });
    const page = await first.browser.send('GET', end.href);
    const form = /<form [^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.text)!;
    const fields = Object.fromEntries(
      [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const confirm = new URL(form[1]!, end).href;
    const done = await first.browser.send('POST', confirm, { ...fields, logout: 'yes' });
    expect(done.status).toBe(303);
    expect(String(done.headers['set-cookie'])).toMatch(/(^|,\s*)session=;/);
    // Signed out here: the browser's session no longer works.
    expect((await first.browser.send('GET', `${issuerOf(gw)}/users/me`)).status).toBe(401);
    await expectDead(first.rp, first.tokens.access_token);
    await expectDead(rpOther, otherTokens.access_token);
    const [toFirst] = await receiver.waitFor('/rp-first');
    await expectLogoutToken(toFirst!, first.rp, first.idClaims);
    const [toOther] = await receiver.waitFor('/rp-other');
    await expectLogoutToken(toOther!, rpOther, otherTokens.claims()!);
  });

  it('leaves exactly one live successor when two gateways refresh one token at once', async () => {
    const rp = await relyingParty(gw, 'default', { firstParty: true });
    const browser = new Browser(gw);
    await browser.register(issuerOf(gw), uniqueEmail('bcl'));
    const req = await authorizationRequest(rp, { scope: 'openid offline_access', prompt: 'consent' });
    const { url } = await browser.follow(req.url.href);
    const { refresh_token: refreshToken } = await exchange(rp, url, req);
    const refresh = (g: Gateway) =>
      g.form(
        '/oauth2/token',
        {
          grant_type: 'refresh_token',
          refresh_token: refreshToken!,
          client_id: rp.clientId,
          client_secret: rp.clientSecret!,
        },
        { host: 'localhost' },
      );
    const answers = await Promise.all([gw, second, gw, second].map(refresh));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const successors = new Set(answers.map((a) => (a.json as { refresh_token: string }).refresh_token));
    expect(successors.size).toBe(1);
    // That one successor is live on either gateway.
    const next = await refresh(second);
    expect(next.status).toBe(200);
    expect((await oidc.refreshTokenGrant(rp.config, [...successors][0]!)).refresh_token).toEqual(expect.any(String));
  });
});

describe('back-channel logout to a private address without ALLOW_PRIVATE_OUTBOUND', () => {
  it('is refused at connect and retried, never delivered', async () => {
    const receiver = await logoutReceiver();
    const gw = await startOidcGateway('pglite');
    try {
      const rp = await relyingParty(gw, 'default', {
        firstParty: true,
        backchannelLogoutUri: receiver.uri('/private'),
      });
      const browser = new Browser(gw);
      await browser.register(issuerOf(gw), uniqueEmail('bcl'));
      const req = await authorizationRequest(rp);
      const { url } = await browser.follow(req.url.href);
      await exchange(rp, url, req);
      await browser.send('POST', `${issuerOf(gw)}/users/logout`, {});
      const until = Date.now() + 8000;
      while (!gw.logs.some((l) => l.includes('back-channel logout failed')) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(gw.logs.join('\n')).toMatch(/special-use IP address|back-channel logout failed/);
      expect(receiver.received).toEqual([]);
      const [queued] = await gw.db.db.select().from(oidcLogouts);
      expect(queued).toMatchObject({ clientId: rp.clientId, attempts: 1 });
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});
