import { freePort, msToNextStep, totpCode } from '@accounts/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { heading, useBrowser } from './support/browser';
import { field, person, submitSignIn, type Person } from './support/flows';
import { startBuiltGateway, type RunningGateway } from './support/gateway-process';
import { appAddresses, type RelyingParty, type RelyingPartyState } from './support/relying-parties/contract';
import { startOpenidClientRp } from './support/relying-parties/openid-client-rp';
import { missingRelyingParties, startApacheRp, startAuthlibRp } from './support/relying-parties/processes';

// Three independent relying parties sign people in with the realm's OpenID Connect provider, in
// Chromium, through the realm's own sign-in and consent pages: openid-client (Node), Authlib
// (Python) and Apache's mod_auth_openidc (OpenID-certified). Each completes the code flow with
// PKCE, validates the ID token against the JWKS itself, reads userinfo, refreshes (the refresh
// token rotates), and is logged out through the back channel when the person signs out here. One
// account has two-step sign-in: its app never gets in without the code, and `amr` says so.

const STORY_MS = 120_000;
const missing = missingRelyingParties();
if (missing.length) {
  const notice = `relying-party tests cannot run: apt-get install -y ${missing.join(' ')} (.ci/run installs them)`;
  if (process.env.CI) throw new Error(notice);
  console.warn(`\n*** ${notice} ***\n`);
}

/** A new account made over HTTP (a program's registration), so the browser is not signed in yet. */
async function registerOverHttp(issuer: string, who: Person): Promise<string> {
  const res = await fetch(`${issuer}/users/register`, {
    method: 'POST',
    body: new URLSearchParams({ name: who.name, email: who.email, password: who.password, password2: who.password }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** Two-step sign-in turned on over HTTP; answers the key. Its code step is one behind the clock,
 *  so the sign-in that follows can use the current step (each step is taken once). */
async function turnOnTwoStep(issuer: string, who: Person, cookie: string): Promise<string> {
  const post = (path: string, body: Record<string, string>) =>
    fetch(`${issuer}${path}`, { method: 'POST', headers: { cookie }, body: new URLSearchParams(body) });
  const setup = await post('/users/totp/setup', {});
  expect(setup.status).toBe(200);
  const { secret } = (await setup.json()) as { secret: string };
  if (msToNextStep() < 3000) await new Promise((r) => setTimeout(r, msToNextStep() + 200));
  const enable = await post('/users/totp/enable', {
    code: totpCode(secret, Date.now(), -1),
    current_password: who.password,
  });
  expect(enable.status, await enable.clone().text()).toBe(200);
  return secret;
}

/** From the app's start address, through the sign-in page (and the code step) and the consent page, back to the app. */
async function signInThroughTheProvider(page: Page, app: RelyingParty, issuer: string, who: Person, secret?: string) {
  // Each step's interaction address is loaded at most twice: once before the sign-in, once after.
  // A third load (the page leaving for it twice) would find the step finished: "expired".
  const loads = new Map<string, number>();
  page.on('request', (request) => {
    const url = request.url();
    if (request.isNavigationRequest() && request.method() === 'GET' && url.startsWith(`${issuer}/oauth2/interaction/`))
      loads.set(url, (loads.get(url) ?? 0) + 1);
  });
  await page.goto(app.loginUrl);
  await page.waitForURL((url) => url.href.startsWith(`${issuer}/`));
  await submitSignIn(page, who.email, who.password);
  if (secret) {
    const code = field(page, '6-digit code');
    await code.waitFor();
    await code.fill(totpCode(secret));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
  await page
    .getByRole('button', { name: 'Allow' })
    .click({ timeout: 15_000 })
    .catch(async (error: unknown) => {
      throw new Error(`no consent page at ${page.url()}: ${await page.locator('body').textContent()}\n${app.log()}`, {
        cause: error,
      });
    });
  await page.waitForURL((url) => url.origin === app.origin);
  expect(loads.size, 'a sign-in step and a consent step').toBe(2);
  for (const [url, count] of loads) expect(count, url).toBeLessThanOrEqual(2);
}

const stateOf = async (app: RelyingParty): Promise<RelyingPartyState> =>
  (await (await fetch(`${app.origin}/state`)).json()) as RelyingPartyState;

async function signOutHere(page: Page, issuer: string) {
  await page.goto(`${issuer}/account`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${issuer}/login`);
}

describe.skipIf(inject('port') === null || missing.length > 0)(
  'independent apps signing in with an account here',
  () => {
    let provider: RunningGateway;
    let issuer: string;
    const apps: Partial<Record<'node' | 'authlib' | 'apache', RelyingParty>> = {};

    beforeAll(async () => {
      const port = await freePort();
      issuer = `http://localhost:${port}`;
      const ports = { node: await freePort(), authlib: await freePort(), apache: await freePort() };
      const register = (name: string, kind: 'script' | 'apache', appPort: number) => {
        const { redirectUri, backchannelLogoutUri } = appAddresses(kind, appPort);
        return [
          'client',
          'create',
          'default',
          '--name',
          name,
          '--redirect-uri',
          redirectUri,
          '--backchannel-logout-uri',
          backchannelLogoutUri,
          '--json',
        ];
      };
      const started = await startBuiltGateway({
        dirPrefix: 'accounts-web-rp-',
        port,
        prepare: [
          register('Node Notes', 'script', ports.node),
          register('Python Wiki', 'script', ports.authlib),
          register('Apache Intranet', 'apache', ports.apache),
        ],
        env: { LOG_LEVEL: 'warn', PUBLIC_PORT: String(port), ALLOW_PRIVATE_OUTBOUND: 'true' },
      });
      provider = started;
      const [node, authlib, apache] = started.preparedEach.map(
        (out) => JSON.parse(out) as { client_id: string; client_secret: string },
      );
      const settings = (p: number, c: { client_id: string; client_secret: string }) => ({
        port: p,
        issuer,
        clientId: c.client_id,
        clientSecret: c.client_secret,
      });
      apps.node = await startOpenidClientRp(settings(ports.node, node!));
      apps.authlib = await startAuthlibRp(settings(ports.authlib, authlib!));
      apps.apache = await startApacheRp(settings(ports.apache, apache!));
    });
    afterAll(async () => {
      for (const app of Object.values(apps)) await app.close();
      await provider?.stop();
    });

    const { page: newPage } = useBrowser();

    /** The Node and Python apps: the same story, told by each app's own /state. */
    async function scriptedAppStory(app: RelyingParty, who: Person, secret?: string) {
      const page = await newPage();
      await signInThroughTheProvider(page, app, issuer, who, secret);
      const signedIn = (await stateOf(app)).signedIn;
      expect(signedIn, app.log()).not.toBeNull();
      const { idToken, userinfo } = signedIn!;
      // The app checked the ID token itself; here is what it holds.
      expect(idToken.iss).toBe(issuer);
      expect(typeof idToken.sub).toBe('string');
      expect(idToken.sub).not.toContain('@');
      expect(typeof idToken.sid).toBe('string');
      expect(typeof idToken.auth_time).toBe('number');
      expect(idToken.amr).toEqual(secret ? ['pwd', 'otp', 'mfa'] : ['pwd']);
      expect(userinfo).toMatchObject({ sub: idToken.sub, email: who.email, name: who.name });
      expect(signedIn!.refreshToken).toBe(true);

      const refreshed = await fetch(`${app.origin}/refresh`, { method: 'POST' });
      expect(refreshed.status, app.log()).toBe(200);
      expect(await refreshed.json()).toEqual({ rotated: true, newAccessToken: true, sub: idToken.sub });

      await signOutHere(page, issuer);
      await expect
        .poll(async () => (await stateOf(app)).logouts, { timeout: 10_000 })
        .toEqual([{ sid: idToken.sid, sub: idToken.sub }]);
      expect((await stateOf(app)).refused).toEqual([]);
    }

    it(
      'openid-client (Node): signs in, refreshes, and is logged out through the back channel',
      { timeout: STORY_MS },
      async () => {
        const who = person('rp-node');
        await registerOverHttp(issuer, who);
        await scriptedAppStory(apps.node!, who);
      },
    );

    it(
      'Authlib (Python): an account with two-step sign-in gets in only with its code, and amr says so',
      { timeout: STORY_MS },
      async () => {
        const who = person('rp-authlib');
        const secret = await turnOnTwoStep(issuer, who, await registerOverHttp(issuer, who));
        await scriptedAppStory(apps.authlib!, who, secret);
      },
    );

    for (const scripts of [true, false])
      it(
        `mod_auth_openidc (Apache): protects its pages with an account here (${scripts ? 'with' : 'without'} scripts)`,
        { timeout: STORY_MS },
        async () => {
          const apache = apps.apache!;
          const who = person(`rp-apache-${scripts ? 'js' : 'nojs'}`);
          await registerOverHttp(issuer, who);
          const page = await newPage({ javaScriptEnabled: scripts });
          await signInThroughTheProvider(page, apache, issuer, who);
          await page.waitForURL(`${apache.origin}/protected/`);
          expect(await heading(page).textContent(), apache.log()).toBe('Signed in to the Apache app');

          // What the module validated and keeps in its session (its info hook).
          const info = async () => {
            const res = await page.request.get(`${apache.origin}/protected/redirect_uri?info=json`, {
              maxRedirects: 0,
            });
            return res.status() === 200 ? ((await res.json()) as Record<string, unknown>) : null;
          };
          const held = (await info())!;
          const idToken = held.id_token as Record<string, unknown>;
          expect(idToken).toMatchObject({ iss: issuer, amr: ['pwd'] });
          expect(held.userinfo).toMatchObject({ sub: idToken.sub, email: who.email });
          expect(typeof held.refresh_token).toBe('string');

          // A refresh through the module: new tokens, and the refresh token rotated.
          const back = encodeURIComponent(`${apache.origin}/protected/`);
          await page.goto(
            `${apache.origin}/protected/redirect_uri?refresh=${back}&access_token=${encodeURIComponent(String(held.access_token))}`,
          );
          await page.waitForURL(`${apache.origin}/protected/`);
          const after = (await info())!;
          expect(after.access_token).not.toBe(held.access_token);
          expect(after.refresh_token).not.toBe(held.refresh_token);

          // Signing out here ends the module's session too (it was told through the back channel).
          await signOutHere(page, issuer);
          await expect.poll(info, { timeout: 10_000 }).toBeNull();
          await page.goto(`${apache.origin}/protected/`);
          expect(page.url(), (await page.locator('body').textContent()) ?? '').toMatch(new RegExp(`^${issuer}/`));
          expect(await heading(page).textContent()).toBe('Sign in');
        },
      );
  },
);
