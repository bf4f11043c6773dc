import { addProvider, createVault, parseSecretKey, type NewProvider } from '@accounts/api';
import { accountEvents, upstreamIdentities, upstreamProviders, users } from '@accounts/db';
import { uniqueEmail } from '@accounts/testing';
import { eq } from 'drizzle-orm';
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakePerson, type FakeUpstream, type FormPost } from './support/fake-upstream.js';
import { STRONG, TEST_SECRET_KEY, type Gateway } from './support/gateway.js';
import { Browser, issuerOf, startOidcGateway } from './support/oidc.js';
import { turnOnTwoStep } from './support/two-step.js';

// What each kind of provider is believed about, against a local stand-in for Google's, Microsoft
// Entra's and GitHub's endpoints that signs in whoever the test names, with any address, verified
// or not: the hostile upstream of nOAuth and its kin. No address alone ever reaches an account.

describe('the provider kinds, with a hostile upstream', () => {
  let fake: FakeUpstream;
  let gw: Gateway;
  let origin: string;

  let appleKey: { pem: string; publicKey: CryptoKey };
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    appleKey = { pem: await exportPKCS8(pair.privateKey), publicKey: pair.publicKey };
    fake = await startFakeUpstream();
    gw = await startOidcGateway('pglite', { ALLOW_PRIVATE_OUTBOUND: 'true' });
    origin = issuerOf(gw);
    const vault = createVault(parseSecretKey(TEST_SECRET_KEY)!);
    const add = (p: NewProvider) => addProvider(gw.db.db, vault, 'default', p, true);
    await add({ id: 'google', kind: 'google', issuer: `${fake.origin}/google`, clientId: 'g', clientSecret: 'gs' });
    await add({
      id: 'entra',
      kind: 'microsoft',
      issuer: `${fake.origin}/tenant-a/v2.0`,
      clientId: 'm',
      clientSecret: 'ms',
    });
    await add({
      id: 'google-mfa',
      kind: 'google',
      issuer: `${fake.origin}/google`,
      clientId: 'g2',
      clientSecret: 'g2s',
      acceptUpstreamMfa: true,
    });
    await add({ id: 'github', kind: 'github', issuer: fake.origin, clientId: 'h', clientSecret: 'hs' });
    await add({
      id: 'apple',
      kind: 'apple',
      issuer: `${fake.origin}/apple`,
      clientId: 'com.example.accounts',
      clientSecret: appleKey.pem,
      teamId: 'TEAM123456',
      keyId: 'KEY1234567',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  /** A browser here, sent to the provider, signed in there as `person`, and back: where it ends. */
  async function signInWith(provider: string, person: FakePerson, browser = new Browser(gw)) {
    fake.as(person);
    let res = await browser.send('GET', `${origin}/users/oauth/${provider}/start?next=/account`);
    let where = new URL(String(res.headers.location), origin);
    for (let hops = 0; hops < 5 && where.origin === fake.origin; hops++) {
      const at = await fetch(where, { redirect: 'manual' });
      where = new URL(at.headers.get('location')!);
      res = await browser.send('GET', where.href);
      where = new URL(String(res.headers.location), origin);
    }
    return { browser, url: where.pathname + where.search };
  }
  const signedInAs = async (browser: Browser) =>
    (await browser.send('GET', `${origin}/users/me`)).json.user?.email as string | undefined;
  const account = async (email: string) => (await gw.db.db.select().from(users).where(eq(users.email, email)))[0];
  const identities = async (email: string) => {
    const user = await account(email);
    return user ? gw.db.db.select().from(upstreamIdentities).where(eq(upstreamIdentities.userId, user.id)) : [];
  };
  /** An account here whose owner confirmed the address: the one a hostile upstream is after. */
  const victim = async () => {
    const email = uniqueEmail('victim');
    await new Browser(gw).register(origin, email);
    await gw.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    return email;
  };

  it('Google: a verified address someone else holds here asks for their password, and never signs in by itself', async () => {
    const email = await victim();
    const hostile = { claims: { sub: 'g-hostile', email, email_verified: true, name: 'Mallory' } };
    const { browser, url } = await signInWith('google', hostile);
    expect(url).toBe('/login?link=pending&next=%2Faccount');
    expect(await signedInAs(browser)).toBeUndefined();
    expect(await identities(email)).toEqual([]);

    // An address Google verified that no account holds makes one, confirmed.
    const own = uniqueEmail('google-own');
    const made = await signInWith('google', { claims: { sub: 'g-own', email: own, email_verified: true } });
    expect(made.url).toBe('/account');
    expect(await signedInAs(made.browser)).toBe(own);
    expect((await account(own))!.emailVerifiedAt).not.toBeNull();
  });

  it('Google: a token signed with a key the provider does not publish is refused and starts nothing', async () => {
    const email = uniqueEmail('forged');
    const { browser, url } = await signInWith('google', {
      claims: { sub: 'g-forged', email, email_verified: true },
      foreignKey: true,
    });
    expect(url).toBe('/login?problem=upstream_failed');
    expect(await signedInAs(browser)).toBeUndefined();
    expect(await account(email)).toBeUndefined();
  });

  it('Microsoft: the address is not verified without xms_edov; the identity is the tenant and oid', async () => {
    const email = await victim();
    // nOAuth: a tenant's admin typed the victim's address as the user's email.
    const typed = await signInWith('entra', { claims: { sub: 's-1', oid: 'oid-1', email, email_verified: true } });
    expect(typed.url).toBe('/login?problem=upstream_email_unverified');
    expect(await signedInAs(typed.browser)).toBeUndefined();
    expect(await identities(email)).toEqual([]);

    const own = uniqueEmail('entra-own');
    const first = await signInWith('entra', { claims: { sub: 's-2', oid: 'oid-2', email: own, xms_edov: true } });
    expect(first.url).toBe('/account');
    expect((await account(own))!.emailVerifiedAt).not.toBeNull();
    expect((await identities(own)).map((i) => [i.issuer, i.subject])).toEqual([
      [`${fake.origin}/tenant-a/v2.0`, 'oid-2'],
    ]);
    // Another app's sub for the same oid, with another address: still the same person.
    const again = await signInWith('entra', {
      claims: { sub: 's-other', oid: 'oid-2', email: uniqueEmail('entra-changed'), xms_edov: true },
    });
    expect(again.url).toBe('/account');
    expect(await signedInAs(again.browser)).toBe(own);
  });

  it('GitHub: only a primary, verified address counts, and the person is the numeric id', async () => {
    const email = await victim();
    const own = uniqueEmail('github-own');
    // The victim's address listed verified but not primary: the primary (unverified) is the one used.
    const hostile = await signInWith('github', {
      github: {
        id: 4242,
        name: 'Octo Cat',
        emails: [
          { email, primary: false, verified: true },
          { email: own, primary: true, verified: false },
        ],
      },
    });
    expect(hostile.url).toBe('/account');
    expect(await signedInAs(hostile.browser)).toBe(own);
    expect((await account(own))!.emailVerifiedAt).toBeNull();
    expect((await identities(own)).map((i) => [i.issuer, i.subject])).toEqual([[fake.origin, '4242']]);
    expect(await identities(email)).toEqual([]);
    // The victim still signs in with their own password.
    const theirs = await new Browser(gw).send('POST', `${origin}/users/login`, { email, password: STRONG });
    expect(theirs.status).toBe(200);

    // A primary, verified address the victim holds: linked only after their password, never by itself.
    const claimed = await signInWith('github', {
      github: { id: 777, name: 'Mallory', emails: [{ email, primary: true, verified: true }] },
    });
    expect(claimed.url).toBe('/login?link=pending&next=%2Faccount');
    expect(await signedInAs(claimed.browser)).toBeUndefined();
  });

  it('Apple: the answer comes by a cross-site form_post, the name with it once, the secret an ES256 JWT made here', async () => {
    const email = uniqueEmail('apple');
    const browser = new Browser(gw);
    fake.as({
      claims: { sub: 'apple-001', email, email_verified: 'true' },
      user: JSON.stringify({ name: { firstName: 'Grace', lastName: 'Hopper' } }),
    });
    const start = await browser.send('GET', `${origin}/users/oauth/apple/start?next=/account`);
    const page = (await (await fetch(String(start.headers.location), { redirect: 'manual' })).json()) as FormPost;
    expect(page.action).toBe(`${origin}/users/oauth/apple/callback`);
    // Apple's page posts from its own origin: the browser sends no cookie of ours (SameSite).
    const posted = await gw.form('/users/oauth/apple/callback', page.fields, {
      headers: { origin: fake.origin, 'sec-fetch-site': 'cross-site' },
    });
    expect(posted.status, posted.text).toBe(303);
    const done = await browser.send('GET', new URL(String(posted.headers.location), origin).href);
    expect(done.headers.location).toBe('/account');
    const me = (await browser.send('GET', `${origin}/users/me`)).json.user;
    expect(me).toMatchObject({ email, name: 'Grace Hopper' });
    expect((await account(email))!.emailVerifiedAt).not.toBeNull();

    // The client secret: signed with the operator's key, naming the team, the app and Apple.
    const { payload, protectedHeader } = await jwtVerify(fake.lastClientSecret()!, appleKey.publicKey, {
      issuer: 'TEAM123456',
      subject: 'com.example.accounts',
      audience: `${fake.origin}/apple`,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'KEY1234567' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(24 * 3600);
    // A kept answer is of no use to another browser: its GET is refused.
    const again = await gw.form('/users/oauth/apple/callback', page.fields, {
      headers: { origin: fake.origin, 'sec-fetch-site': 'cross-site' },
    });
    const stranger = await new Browser(gw).send('GET', new URL(String(again.headers.location), origin).href);
    expect(stranger.headers.location).toBe('/login?problem=upstream_failed');
  });

  it('asks an account with two-step sign-in for its second step, unless the provider is trusted for its mfa', async () => {
    const email = uniqueEmail('mfa');
    const registered = await new Browser(gw).register(origin, email);
    await gw.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    await turnOnTwoStep(gw, { cookie: registered.cookie! });
    const user = (await account(email))!;
    // The same person linked through both providers (as earlier links would have made).
    for (const slug of ['google', 'google-mfa']) {
      const [provider] = await gw.db.db.select().from(upstreamProviders).where(eq(upstreamProviders.slug, slug));
      await gw.db.db.insert(upstreamIdentities).values({
        realmId: user.realmId,
        userId: user.id,
        providerId: provider!.id,
        issuer: `${fake.origin}/google`,
        subject: `mfa-${slug}`,
        email,
      });
    }
    const said = (slug: string) => ({
      claims: { sub: `mfa-${slug}`, email, email_verified: true, amr: ['pwd', 'mfa'] },
    });
    // Off by default: the upstream's mfa is not this account's second step.
    const plain = await signInWith('google', said('google'));
    expect(plain.url).toMatch(/^\/login\?step=second&methods=totp/);
    expect(await signedInAs(plain.browser)).toBeUndefined();
    // Trusted by the operator: a whole sign-in, recorded as such.
    const trusted = await signInWith('google-mfa', said('google-mfa'));
    expect(trusted.url).toBe('/account');
    expect(await signedInAs(trusted.browser)).toBe(email);
    const events = await gw.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id));
    expect(events.map((e) => e.type)).toContain('upstream_mfa_accepted');
    // Without mfa in its amr, even the trusted provider leaves the second step to this service.
    const weak = await signInWith('google-mfa', { claims: { ...said('google-mfa').claims, amr: ['pwd'] } });
    expect(weak.url).toMatch(/^\/login\?step=second/);
  });
});
