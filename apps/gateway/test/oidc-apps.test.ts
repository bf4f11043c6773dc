import { accountEvents, mailOutbox, oidcArtifacts, users } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { and, eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRONG, type Gateway } from './support/gateway.js';
import {
  authorizationRequest,
  Browser,
  exchange,
  issuerOf,
  relyingParty,
  signInToApp,
  startOidcGateway,
} from './support/oidc.js';

// The apps with access to an account over real HTTP: a real code flow with openid-client as the
// app and a browser without scripts, then GET /users/apps and POST /users/apps/revoke with the
// browser's session, and what removing access does to the app's tokens.
describe.each(testDrivers())('apps with access on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startOidcGateway(driver);
  });
  afterAll(() => gw?.close());

  const userOf = async (email: string) => (await gw.db.db.select().from(users).where(eq(users.email, email)))[0]!;
  const eventsOf = async (userId: string) =>
    gw.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId)).orderBy(accountEvents.id);
  const noticesTo = async (email: string) =>
    gw.db.db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.recipient, email), eq(mailOutbox.template, 'app_signed_in')));

  /** Signs in to the app, and the app takes its tokens. */
  async function signInToAppFor(
    browser: Browser,
    rp: Awaited<ReturnType<typeof relyingParty>>,
    params: Record<string, string> = {},
  ) {
    const { req, callback } = await signInToApp(browser, rp, params);
    return exchange(rp, callback, req);
  }

  /** A browser signed in with a new account whose address is confirmed. */
  async function confirmedAccount() {
    const browser = new Browser(gw);
    const email = uniqueEmail('apps');
    await browser.register(issuerOf(gw), email);
    await gw.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    return { browser, email, user: await userOf(email) };
  }

  const listOf = async (browser: Browser) => {
    const res = await browser.send('GET', `${issuerOf(gw)}/users/apps`);
    expect(res.status, res.text).toBe(200);
    return res.json.apps as { clientId: string; name: string; scopes: string[]; lastUsedAt: string }[];
  };

  it('lists the app after a real code flow, records the sign-in (a notice the first time only), and removing access kills its refresh and access tokens at once', async () => {
    const rp = await relyingParty(gw, 'default', { name: 'Photo Book' });
    const { browser, email, user } = await confirmedAccount();

    const tokens = await signInToAppFor(browser, rp, {
      scope: 'openid profile email offline_access',
      prompt: 'consent',
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const apps = await listOf(browser);
    expect(apps).toEqual([
      expect.objectContaining({
        clientId: rp.clientId,
        name: 'Photo Book',
        firstParty: false,
        scopes: ['openid', 'profile', 'email', 'offline_access'],
      }),
    ]);
    // Nothing of the tokens in the list.
    expect(JSON.stringify(apps)).not.toContain(tokens.access_token);

    // The sign-in is an event naming the app, and the first one mailed a notice.
    const signedIn = (await eventsOf(user.id)).filter((e) => e.type === 'app_signed_in');
    expect(signedIn).toHaveLength(1);
    expect(signedIn[0]).toMatchObject({ appClientId: rp.clientId, appName: 'Photo Book' });
    expect(await noticesTo(email)).toHaveLength(1);
    // An authorization that none of our pages finished (the provider's session, the consent
    // remembered) is no new sign-in.
    await signInToAppFor(browser, rp, { scope: 'openid email' });
    expect((await eventsOf(user.id)).filter((e) => e.type === 'app_signed_in')).toHaveLength(1);
    // Another browser signing in to it (our sign-in; the consent remembered) is one, without a notice.
    const second = new Browser(gw);
    expect((await second.send('POST', `${issuerOf(gw)}/users/login`, { email, password: STRONG })).status).toBe(200);
    await signInToAppFor(second, rp, { scope: 'openid email' });
    expect((await eventsOf(user.id)).filter((e) => e.type === 'app_signed_in')).toHaveLength(2);
    expect(await noticesTo(email)).toHaveLength(1);
    // The activity page names the app.
    const activity = await browser.send('GET', `${issuerOf(gw)}/users/activity`);
    expect(activity.json.events[0]).toMatchObject({ type: 'app_signed_in', app: 'Photo Book' });

    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(true);
    expect((await oidc.tokenIntrospection(rp.config, tokens.refresh_token!)).active).toBe(true);

    // Bad input changes nothing: an empty or repeated field, an app it has no access to.
    const revoke = (body: Record<string, string>) => browser.send('POST', `${issuerOf(gw)}/users/apps/revoke`, body);
    const empty = await revoke({ client_id: '' });
    expect(empty.status).toBe(422);
    expect(empty.json).toMatchObject({ code: 'validation_failed', errors: [{ field: 'client_id', code: 'required' }] });
    const unknown = await revoke({ client_id: 'not-an-app' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('not_found');
    expect(await listOf(browser)).toHaveLength(1);
    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(true);

    const removed = await revoke({ client_id: rp.clientId });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json).toEqual({ ok: true });
    expect(await listOf(browser)).toEqual([]);
    // Every token of it is dead at once: introspection inactive, userinfo 401, no refresh.
    expect((await oidc.tokenIntrospection(rp.config, tokens.access_token)).active).toBe(false);
    expect((await oidc.tokenIntrospection(rp.config, tokens.refresh_token!)).active).toBe(false);
    const info = await gw.send('GET', '/oauth2/userinfo', {
      host: 'localhost',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const left = await gw.db.db
      .select()
      .from(oidcArtifacts)
      .where(and(eq(oidcArtifacts.clientId, rp.clientId), eq(oidcArtifacts.accountId, user.subject)));
    expect(left).toEqual([]);
    const gone = (await eventsOf(user.id)).filter((e) => e.type === 'app_access_removed');
    expect(gone).toHaveLength(1);
    expect(gone[0]).toMatchObject({ appClientId: rp.clientId, appName: 'Photo Book' });
    // Removed once: the same answer as an app it never had.
    expect((await revoke({ client_id: rp.clientId })).status).toBe(404);

    // Signing in to the app again asks for consent again.
    const again = await authorizationRequest(rp);
    const page = await browser.follow(again.url.href);
    expect(page.res.status).toBe(200);
    expect(page.res.text).toContain('name="decision"');
  });

  it('records a first-party app (no consent page) and lists it; a denied consent is no sign-in', async () => {
    const own = await relyingParty(gw, 'default', { name: 'Our Wiki', firstParty: true });
    const { browser, email, user } = await confirmedAccount();
    await signInToAppFor(browser, own);
    expect((await listOf(browser)).map((a) => a.name)).toEqual(['Our Wiki']);
    expect((await eventsOf(user.id)).filter((e) => e.type === 'app_signed_in')).toHaveLength(1);
    expect(await noticesTo(email)).toHaveLength(1);

    const other = await relyingParty(gw, 'default', { name: 'Denied' });
    const ask = await authorizationRequest(other);
    const page = await browser.follow(ask.url.href);
    const action = new URL(/action="([^"]+)"/.exec(page.res.text)![1]!, page.url).href;
    const denied = await browser.follow(action, await browser.send('POST', action, { decision: 'deny' }));
    expect(new URL(denied.url).searchParams.get('error')).toBe('access_denied');
    expect((await eventsOf(user.id)).filter((e) => e.type === 'app_signed_in')).toHaveLength(1);
    expect((await listOf(browser)).map((a) => a.name)).toEqual(['Our Wiki']);
  });
});
