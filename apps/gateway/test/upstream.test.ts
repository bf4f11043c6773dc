import { addProvider, createClient, createVault, parseSecretKey } from '@accounts/api';
import { accountEvents, mailOutbox, sessions, upstreamIdentities, upstreamProviders, users } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openedPayload, STRONG, TEST_SECRET_KEY, type Gateway } from './support/gateway.js';
import { Browser, issuerOf, startOidcGateway } from './support/oidc.js';
import { turnOnTwoStep } from './support/two-step.js';

// Signing in with an upstream OpenID Connect provider, end to end: the upstream is a second
// gateway of this service (its own database, its own oidc-provider), registered as provider "up"
// of the downstream's default realm. A person is a browser on each site; redirects between the
// two are followed like a browser's, without scripts.

describe.each(testDrivers())('sign-in with an upstream provider on %s', (driver) => {
  let up: Gateway;
  let down: Gateway;
  let upOrigin: string;
  let downOrigin: string;

  beforeAll(async () => {
    up = await startOidcGateway('pglite');
    // Mails stay queued (no sender), so a reset link is read from the outbox before delivery
    // would clear it.
    down = await startOidcGateway(driver, { ALLOW_PRIVATE_OUTBOUND: 'true', MAIL_POLL_MS: '0' });
    upOrigin = issuerOf(up);
    downOrigin = issuerOf(down);
    const { client, clientSecret } = await createClient(up.db.db, 'default', {
      name: 'Downstream',
      redirectUris: [`${downOrigin}/users/oauth/up/callback`],
      firstParty: true,
    });
    const vault = createVault(parseSecretKey(TEST_SECRET_KEY)!);
    await addProvider(
      down.db.db,
      vault,
      'default',
      { id: 'up', issuer: upOrigin, clientId: client.clientId, clientSecret: clientSecret!, name: 'Upstream' },
      true,
    );
  });
  afterAll(async () => {
    await down?.close();
    await up?.close();
  });

  /** A person: a browser on each site, signed in upstream as `email` (confirmed there unless told). */
  async function person(email: string, opts: { upstreamConfirmed?: boolean } = {}) {
    const at = { up: new Browser(up), down: new Browser(down) };
    await at.up.register(upOrigin, email);
    if (opts.upstreamConfirmed !== false)
      await up.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    return at;
  }

  /**
   * Follows redirects across the two sites, each in its own browser, until a page of the
   * downstream's web app (or `stopAt`, a path of the downstream): that answer and its address.
   */
  async function walk(at: { up: Browser; down: Browser }, url: string, stopAt?: string) {
    const browserOf = (u: URL) => (u.port === String(up.port) ? at.up : at.down);
    let where = new URL(url);
    let res = await browserOf(where).send('GET', where.href);
    for (let hops = 0; hops < 20 && res.status >= 300 && res.status < 400; hops++) {
      where = new URL(String(res.headers.location), where);
      const downstream = where.port === String(down.port);
      if (downstream && (where.pathname === stopAt || !/^\/(users|oauth2)\//.test(where.pathname)))
        return { res, url: where };
      res = await browserOf(where).send('GET', where.href);
    }
    return { res, url: where };
  }

  const start = (next = '/settings') => `${downOrigin}/users/oauth/up/start?next=${encodeURIComponent(next)}`;
  const me = (browser: Browser) => browser.send('GET', `${downOrigin}/users/me`);
  const emailOf = async (browser: Browser) => (await me(browser)).json.user?.email as string | undefined;
  const downUser = async (email: string) => (await down.db.db.select().from(users).where(eq(users.email, email)))[0];
  const identitiesOf = (userId: string) =>
    down.db.db.select().from(upstreamIdentities).where(eq(upstreamIdentities.userId, userId));
  const eventsOf = async (userId: string) =>
    (await down.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);
  const registerDown = async (browser: Browser, email: string, confirmed: boolean) => {
    await browser.register(downOrigin, email);
    if (confirmed) await down.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
  };

  it('makes an account for a new identity, confirmed as the provider vouched, and finds it again by its subject, not its address', async () => {
    const email = uniqueEmail('up-new');
    const at = await person(email);
    const { url } = await walk(at, start('/settings'));
    expect(url.href).toBe(`${downOrigin}/settings`);
    const signedIn = await me(at.down);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.json.user).toMatchObject({ email, name: 'Test User' });
    const account = (await downUser(email))!;
    expect(account.emailVerifiedAt).not.toBeNull();
    const [identity] = await identitiesOf(account.id);
    expect(identity).toMatchObject({ issuer: upOrigin, email });
    expect(identity!.subject).not.toContain('@');

    // The address changes upstream: the same subject still reaches the same account.
    const changed = uniqueEmail('up-changed');
    await up.db.db.update(users).set({ email: changed }).where(eq(users.email, email));
    const again = { up: at.up, down: new Browser(down) };
    expect((await walk(again, start('/account'))).url.pathname).toBe('/account');
    expect(await emailOf(again.down)).toBe(email);
    expect(await down.db.db.select().from(users).where(eq(users.email, changed))).toEqual([]);
    expect(await eventsOf(account.id)).toContain('signed_in');

    // No password yet: "Forgot password" gives it one, and then the password signs in too.
    expect((await down.form('/users/forgot_password', { email })).status).toBe(202);
    const rows = await down.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    const reset = openedPayload(rows.find((r) => r.template === 'reset_password')) as { link: string };
    const token = new URL(reset.link).searchParams.get('token')!;
    const set = await down.form('/users/reset_password', { token, new_password: STRONG, confirm_password: STRONG });
    expect(set.status, set.text).toBe(200);
    const withPassword = await new Browser(down).send('POST', `${downOrigin}/users/login`, { email, password: STRONG });
    expect(withPassword.status, withPassword.text).toBe(200);
  });

  it('never signs in or links by address: an account holding it is signed in to with its own password first, then linked', async () => {
    const email = uniqueEmail('up-link');
    const owner = new Browser(down);
    await registerDown(owner, email, true);
    const account = (await downUser(email))!;

    const at = await person(email);
    const { url } = await walk(at, start('/settings'));
    expect(url.pathname + url.search).toBe('/login?link=pending&next=%2Fsettings');
    expect((await me(at.down)).status).toBe(401);
    expect(await identitiesOf(account.id)).toEqual([]);

    // The person proves the account is theirs with its own password, in the same browser.
    const signIn = await at.down.send('POST', `${downOrigin}/users/login`, { email, password: STRONG });
    expect(signIn.status, signIn.text).toBe(200);
    expect((await identitiesOf(account.id)).map((i) => i.email)).toEqual([email]);
    expect(await eventsOf(account.id)).toContain('connection_added');

    // From now on the provider alone signs in to that account.
    const later = { up: at.up, down: new Browser(down) };
    expect((await walk(later, start('/account'))).url.pathname).toBe('/account');
    expect(await emailOf(later.down)).toBe(email);
  });

  it('does not even offer the link when the provider did not confirm the address', async () => {
    const email = uniqueEmail('up-unverified');
    await registerDown(new Browser(down), email, true);
    const at = await person(email, { upstreamConfirmed: false });
    const { url } = await walk(at, start());
    expect(url.pathname + url.search).toBe('/login?problem=upstream_email_unverified');
    expect((await me(at.down)).status).toBe(401);
    // Signing in with the password afterwards links nothing.
    expect((await at.down.send('POST', `${downOrigin}/users/login`, { email, password: STRONG })).status).toBe(200);
    expect(await identitiesOf((await downUser(email))!.id)).toEqual([]);
  });

  it('takes over an account whose address was never confirmed, ending its password and sessions', async () => {
    const email = uniqueEmail('up-takeover');
    const squatter = new Browser(down);
    await registerDown(squatter, email, false);
    expect((await me(squatter)).status).toBe(200);

    const at = await person(email);
    const { url } = await walk(at, start());
    expect(url.pathname + url.search).toBe('/settings/connections?notice=upstream_took_over');
    expect(await emailOf(at.down)).toBe(email);
    expect((await me(squatter)).status).toBe(401);
    const old = await new Browser(down).send('POST', `${downOrigin}/users/login`, { email, password: STRONG });
    expect(old.json.errors?.[0]?.code, old.text).toBe('credentials_invalid');
    const account = (await downUser(email))!;
    expect(account.emailVerifiedAt).not.toBeNull();
    expect(await eventsOf(account.id)).toContain('account_taken_over');
  });

  it('still asks an account with two-step sign-in for its second step', async () => {
    const email = uniqueEmail('up-two-step');
    const registered = await new Browser(down).register(downOrigin, email);
    await down.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    await turnOnTwoStep(down, { cookie: registered.cookie! });
    // The account is linked to the person's upstream subject (as a link made earlier would be).
    const at = await person(email);
    const upstreamUser = (await up.db.db.select().from(users).where(eq(users.email, email)))[0]!;
    const account = (await downUser(email))!;
    const [provider] = await down.db.db.select().from(upstreamProviders).where(eq(upstreamProviders.slug, 'up'));
    await down.db.db.insert(upstreamIdentities).values({
      realmId: account.realmId,
      userId: account.id,
      providerId: provider!.id,
      issuer: upOrigin,
      subject: upstreamUser.subject,
      email,
    });

    const { url } = await walk(at, start('/account'));
    expect(url.pathname).toBe('/login');
    expect(url.searchParams.get('step')).toBe('second');
    expect(url.searchParams.get('methods')).toContain('totp');
    expect(url.searchParams.get('next')).toBe('/account');
    expect((await me(at.down)).status).toBe(401);
  });

  it('ends every refused callback on the sign-in page with a plain message, no session, and counts it', async () => {
    const email = uniqueEmail('up-refused');
    const at = await person(email);
    // A state this browser never started, an upstream that said no, a code replayed.
    for (const query of ['state=forged&code=whatever', 'error=access_denied&state=forged']) {
      const res = await at.down.send('GET', `${downOrigin}/users/oauth/up/callback?${query}`);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/login?problem=upstream_failed');
    }
    const reached = await walk(at, start(), '/users/oauth/up/callback');
    const callback = reached.url.href;
    expect(callback).toContain('code=');
    const first = await at.down.send('GET', callback);
    expect(first.headers.location).toBe('/settings');
    const stranger = new Browser(down);
    const replayed = await stranger.send('GET', callback);
    expect(replayed.headers.location).toBe('/login?problem=upstream_failed');
    expect((await me(stranger)).status).toBe(401);
    const refusals = await down.db.db.select().from(accountEvents).where(eq(accountEvents.type, 'upstream_failed'));
    expect(refusals.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps a form_post answer, which carries no cookie of ours, for the browser that started the flow', async () => {
    const email = uniqueEmail('up-form-post');
    const at = await person(email);
    const reached = await walk(at, start('/account'), '/users/oauth/up/callback');
    const answer = Object.fromEntries(reached.url.searchParams);
    // The provider's page posts the answer cross-site: no cookie, another origin.
    const posted = await down.form('/users/oauth/up/callback', answer, {
      host: new URL(downOrigin).host.split(':')[0],
      headers: { origin: upOrigin, 'sec-fetch-site': 'cross-site' },
    });
    expect(posted.status, posted.text).toBe(303);
    const back = new URL(String(posted.headers.location), downOrigin);
    expect(back.pathname).toBe('/users/oauth/up/callback');
    const done = await at.down.send('GET', back.href);
    expect(done.headers.location).toBe('/account');
    expect(await emailOf(at.down)).toBe(email);
  });

  it('lists connections and refuses to remove the only way in', async () => {
    const email = uniqueEmail('up-connections');
    const at = await person(email);
    await walk(at, start());
    const listed = await at.down.send('GET', `${downOrigin}/users/connections`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.connections).toEqual([
      expect.objectContaining({ provider: 'up', providerName: 'Upstream', email }),
    ]);
    expect(listed.json.hasPassword).toBe(false);
    const removed = await at.down.send('POST', `${downOrigin}/users/connections/remove`, { provider: 'up' });
    expect(removed.status).toBe(409);
    expect(removed.json.code).toBe('connection_last_way_in');
    expect((await at.down.send('GET', `${downOrigin}/users/connections`)).json.connections).toHaveLength(1);
  });

  it('connects an account from its own page after a fresh password, links whatever address the provider gives, and tells the owner', async () => {
    const email = uniqueEmail('up-connect');
    const at = { up: new Browser(up), down: new Browser(down) };
    await registerDown(at.down, email, true);
    // The person is someone else's address upstream: connecting links by the session, not the address.
    const elsewhere = uniqueEmail('up-connect-other');
    await at.up.register(upOrigin, elsewhere);
    // A session that proved its password more than five minutes ago is asked to prove it again.
    const account0 = (await downUser(email))!;
    const proved = (at: Date) =>
      down.db.db.update(sessions).set({ passwordCheckedAt: at }).where(eq(sessions.userId, account0.id));
    await proved(new Date(Date.now() - 10 * 60_000));
    const stale = await at.down.send('POST', `${downOrigin}/users/connections/connect`, { provider: 'up' });
    expect(stale.headers.location).toBe('/settings/connections?problem=connection_recheck_required');
    await proved(new Date());
    const connect = await at.down.send('POST', `${downOrigin}/users/connections/connect`, { provider: 'up' });
    expect(connect.status, connect.text).toBe(303);
    expect(String(connect.headers.location)).toMatch(new RegExp(`^${upOrigin}/oauth2/auth\\?`));
    const back = await walk(at, connect.headers.location as string);
    expect(back.url.pathname + back.url.search).toBe('/settings/connections?notice=connected');
    const account = (await downUser(email))!;
    expect((await identitiesOf(account.id)).map((i) => i.email)).toEqual([elsewhere]);
    expect(await eventsOf(account.id)).toContain('connection_added');
    const told = await down.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    expect(told.map((m) => m.template)).toContain('connection_changed');

    // Removing it (the password is still a way in) is an event and a notice too.
    const removed = await at.down.send('POST', `${downOrigin}/users/connections/remove`, { provider: 'up' });
    expect(removed.json).toEqual({ ok: true });
    expect(await identitiesOf(account.id)).toEqual([]);
    expect(await eventsOf(account.id)).toContain('connection_removed');
    const notices = await down.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    expect(notices.filter((m) => m.template === 'connection_changed')).toHaveLength(2);
  });
});
