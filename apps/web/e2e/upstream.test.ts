import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@accounts/testing';
import { message } from '@accounts/validators';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../gateway/test/support/fake-upstream';
import { heading, useBrowser } from './support/browser';
import { register, person } from './support/flows';
import { startBuiltGateway, type RunningGateway } from './support/gateway-process';

// "Continue with …" in Chromium, with and without scripts: the upstream is a second gateway of
// this service (its default realm at http://127.0.0.1:<port>, an OpenID Connect provider with an
// app registered for the first), the first is http://localhost:<port> with that provider added
// as "up". Chromium keeps the two hosts' cookies apart, as it would two sites'.

const STORY_MS = 120_000;

describe.skipIf(inject('port') === null)('signing in with another provider in a browser', () => {
  let up: RunningGateway;
  let down: RunningGateway;
  // Apple's endpoints, stood in for on loopback: its answer a cross-site form_post.
  let apple: FakeUpstream;
  const keyDir = mkdtempSync(join(tmpdir(), 'accounts-apple-key-'));
  let upOrigin: string;
  let shop: string;

  beforeAll(async () => {
    const [upPort, downPort] = [await freePort(), await freePort()];
    upOrigin = `http://127.0.0.1:${upPort}`;
    shop = `http://localhost:${downPort}`;
    const started = await startBuiltGateway({
      dirPrefix: 'accounts-web-upstream-idp-',
      port: upPort,
      prepare: [
        'client',
        'create',
        'default',
        '--name',
        'Shop',
        '--redirect-uri',
        `${shop}/users/oauth/up/callback`,
        '--first-party',
        '--json',
      ],
      env: { LOG_LEVEL: 'warn', ROOT_DOMAIN: '127.0.0.1', PUBLIC_URL: upOrigin },
    });
    up = started;
    const app = JSON.parse(started.prepared) as { client_id: string; client_secret: string };
    apple = await startFakeUpstream();
    const keyFile = join(keyDir, 'AuthKey.p8');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    down = await startBuiltGateway({
      dirPrefix: 'accounts-web-upstream-rp-',
      port: downPort,
      prepare: [
        [
          'realm',
          'provider',
          'add',
          'default',
          'up',
          '--issuer',
          upOrigin,
          '--client-id',
          app.client_id,
          '--client-secret',
          app.client_secret,
          '--name',
          'Upstream ID',
        ],
        [
          'realm',
          'provider',
          'add',
          'default',
          'apple',
          '--kind',
          'apple',
          '--issuer',
          `${apple.origin}/apple`,
          '--client-id',
          'com.example.shop',
          '--client-secret-file',
          keyFile,
          '--team-id',
          'TEAM123456',
          '--key-id',
          'KEY1234567',
        ],
      ],
      env: { LOG_LEVEL: 'warn', PUBLIC_PORT: String(downPort), ALLOW_PRIVATE_OUTBOUND: 'true' },
    });
  });
  afterAll(async () => {
    await down?.stop();
    await up?.stop();
    await apple?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  const { page: newPage } = useBrowser();

  it(
    'signs in from the sign-in page with scripts, making the account, and lists the connection',
    { timeout: STORY_MS },
    async () => {
      const page = await newPage();
      const who = person('upstream-js');
      await register(page, upOrigin, who);

      await page.goto(`${shop}/login`);
      await page.getByRole('link', { name: 'Continue with Upstream ID' }).click();
      await page.waitForURL(`${shop}/account`);
      expect(await page.content()).toContain(who.email);

      await page.goto(`${shop}/settings/connections`);
      await expect.poll(() => heading(page).textContent()).toBe('Connected accounts');
      expect(await page.locator('main').textContent()).toContain('Upstream ID');
      // The only way in (no password here, no passkey): removing it is refused, and said.
      await page.getByRole('button', { name: 'Remove Upstream ID' }).click();
      await expect.poll(() => page.locator('main').textContent()).toContain(message('connection_last_way_in', 'en'));
    },
  );

  it(
    'works without scripts: the registration page offers it, a refusal lands on the sign-in page in plain words',
    { timeout: STORY_MS },
    async () => {
      const page = await newPage({ javaScriptEnabled: false });
      const who = person('upstream-nojs');
      // Registration at the provider without scripts: the form posts and the server answers with the next page.
      await page.goto(`${upOrigin}/register`);
      await page.getByLabel('Name', { exact: true }).fill(who.name);
      await page.getByLabel('Email address', { exact: true }).fill(who.email);
      await page.getByLabel('Password', { exact: true }).fill(who.password);
      await page.getByLabel('Confirm password', { exact: true }).fill(who.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${upOrigin}/account`);

      await page.goto(`${shop}/register?next=/settings/connections`);
      await page.getByRole('link', { name: 'Continue with Upstream ID' }).click();
      await page.waitForURL(`${shop}/settings/connections`);
      expect(await page.locator('main').textContent()).toContain('Upstream ID');

      // A callback this browser never started: the sign-in page says so, and no one is signed in.
      const fresh = await newPage({ javaScriptEnabled: false });
      await fresh.goto(`${shop}/users/oauth/up/callback?state=forged&code=x`);
      await fresh.waitForURL(/\/login\?problem=upstream_failed$/);
      expect(await fresh.locator('main').textContent()).toContain(message('upstream_failed', 'en'));
    },
  );

  for (const scripts of [true, false])
    it(
      `keeps Apple's cross-site form_post for the browser that started it (${scripts ? 'with' : 'without'} scripts)`,
      { timeout: STORY_MS },
      async () => {
        const page = await newPage({ javaScriptEnabled: scripts });
        const email = person(`apple-${scripts ? 'js' : 'nojs'}`).email;
        apple.as({
          claims: { sub: `apple-${email}`, email, email_verified: 'true' },
          user: JSON.stringify({ name: { firstName: 'Grace', lastName: 'Hopper' } }),
        });
        await page.goto(`${shop}/login`);
        await page.getByRole('link', { name: 'Continue with Apple' }).click();
        // Apple's page posts the answer from its own origin: no SameSite cookie of ours goes with it.
        if (!scripts) {
          await page.waitForURL(new RegExp(`^${apple.origin}/apple/authorize`));
          await page.getByRole('button', { name: 'Continue' }).click();
        }
        await page.waitForURL(`${shop}/account`);
        const main = await page.locator('main').textContent();
        expect(main).toContain(email);
        expect(main).toContain('Grace Hopper');
      },
    );
});
