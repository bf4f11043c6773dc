import { accountEvents, oidcArtifacts, users } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { shownRealm } from '../src/kernel/context.js';
import { renderMail } from '../src/mail/templates.js';
import { recordAppSignIn } from '../src/oidc/app-sign-in.js';
import { artifactStore } from '../src/oidc/artifacts.js';
import { createClient } from '../src/oidc/clients.js';
import { findRealm } from '../src/records/realms.js';
import { mailsTo } from './email-harness.js';
import { problemOf, registerUser, useHarness } from './harness.js';

// The apps with access to an account (its live grants, by app) and removing that access, and the
// record of a sign-in to an app, on a real database: the rows are the provider's own (artifacts.ts).
describe.each(testDrivers())('apps with access on %s', (driver) => {
  const h = useHarness(driver);
  const realmOf = async (slug = 'default') => (await findRealm(h.db.db, slug))!;
  const store = async (slug = 'default') =>
    artifactStore(h.db.db, (await realmOf(slug)).id, {
      alreadyConsumed: () => new Error('already used'),
      vault: h.vault,
    });
  const subjectOf = async (userId: string) =>
    (await h.db.db.select().from(users).where(eq(users.id, userId)))[0]!.subject;

  /** A registered app, and a grant of it to the account (with a code, an access and a refresh token of it). */
  async function granted(
    subject: string,
    opts: { realm?: string; name?: string; scope?: string; firstParty?: boolean; tokens?: boolean } = {},
  ) {
    const slug = opts.realm ?? 'default';
    const { client } = await createClient(h.db.db, slug, {
      name: opts.name ?? 'Notes',
      redirectUris: ['https://notes.example/cb'],
      firstParty: opts.firstParty,
    });
    const s = await store(slug);
    const grantId = `g-${client.clientId}`;
    const base = { accountId: subject, clientId: client.clientId };
    await s('Grant').upsert(grantId, { ...base, jti: grantId, openid: { scope: opts.scope ?? 'openid email' } }, 3600);
    if (opts.tokens !== false) {
      await s('AuthorizationCode').upsert(`c-${grantId}`, { ...base, grantId }, 60);
      await s('AccessToken').upsert(`a-${grantId}`, { ...base, grantId }, 600);
      await s('RefreshToken').upsert(`r-${grantId}`, { ...base, grantId }, 3600);
    }
    return client;
  }
  /** One more grant of the app to the account. */
  const grant = async (subject: string, clientId: string, id: string, scope: string) =>
    (await store())('Grant').upsert(id, { accountId: subject, clientId, jti: id, openid: { scope } }, 3600);
  const rowsOf = async (realmId: string, clientId: string) =>
    h.db.db
      .select({ kind: oidcArtifacts.kind })
      .from(oidcArtifacts)
      .where(and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.clientId, clientId)));

  it('needs a session (401)', async () => {
    expect(await problemOf(h.caller().apps.list())).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await problemOf(h.caller().apps.revoke({ client_id: 'x' }))).toMatchObject({ status: 401 });
  });

  it('lists each app with a live grant once: its name, the scopes granted, when it was last used; first-party ones too', async () => {
    const { user, token } = await registerUser(h);
    const subject = await subjectOf(user.id);
    expect(await h.caller({ token }).apps.list()).toEqual({ apps: [] });

    const notes = await granted(subject, { name: 'Notes', scope: 'openid profile email offline_access' });
    const own = await granted(subject, { name: 'Our Wiki', scope: 'openid', firstParty: true, tokens: false });
    // A second grant of one app (asked again for more): one app, the scopes of both.
    await grant(subject, own.clientId, 'g-more', 'openid email');
    // An expired grant is no access; another account's and another realm's grants are not this one's.
    const gone = await granted(subject, { name: 'Gone' });
    await h.db.db
      .update(oidcArtifacts)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(oidcArtifacts.clientId, gone.clientId), eq(oidcArtifacts.kind, 'Grant')));
    const other = await registerUser(h);
    await granted(await subjectOf(other.user.id), { name: 'Theirs' });
    await h.realm('acme');
    await granted(subject, { realm: 'acme', name: 'Elsewhere' });
    // Notes got a token a minute from now: it is the most recently used.
    await h.db.db
      .update(oidcArtifacts)
      .set({ createdAt: sql`now() + interval '1 minute'` })
      .where(and(eq(oidcArtifacts.clientId, notes.clientId), eq(oidcArtifacts.kind, 'RefreshToken')));

    const { apps } = await h.caller({ token }).apps.list();
    expect(apps.map((a) => a.name)).toEqual(['Notes', 'Our Wiki']);
    expect(apps[0]).toMatchObject({
      clientId: notes.clientId,
      firstParty: false,
      scopes: ['openid', 'profile', 'email', 'offline_access'],
    });
    expect(apps[0]!.lastUsedAt.getTime()).toBeGreaterThan(apps[0]!.grantedAt.getTime() + 30_000);
    expect(apps[1]).toMatchObject({ clientId: own.clientId, firstParty: true, scopes: ['openid', 'email'] });
    // Without a token, last used is when access was given.
    expect(apps[1]!.lastUsedAt.getTime()).toBeGreaterThanOrEqual(apps[1]!.grantedAt.getTime());
    // Nothing secret in the answer: no grant, code or token id.
    expect(JSON.stringify(apps)).not.toMatch(/g-|a-g|r-g|c-g/);
  });

  it("removes an app's access at once: its grants, codes and tokens of every kind, an event naming it; nothing of another app or account", async () => {
    const { user, token } = await registerUser(h);
    const subject = await subjectOf(user.id);
    const realm = await realmOf();
    const notes = await granted(subject, { name: 'Notes' });
    const keep = await granted(subject, { name: 'Keep' });
    const other = await registerUser(h);
    const otherSubject = await subjectOf(other.user.id);
    await grant(otherSubject, notes.clientId, 'g-theirs', 'openid');
    expect((await rowsOf(realm.id, notes.clientId)).map((r) => r.kind).sort()).toEqual([
      'AccessToken',
      'AuthorizationCode',
      'Grant',
      'Grant',
      'RefreshToken',
    ]);

    const c = h.caller({ token, ip: '192.0.2.7' });
    expect(await c.apps.revoke({ client_id: notes.clientId })).toEqual({ ok: true });
    // Only the other account's grant of the app stays.
    expect(await rowsOf(realm.id, notes.clientId)).toEqual([{ kind: 'Grant' }]);
    expect(await (await store())('AccessToken').find(`a-g-${notes.clientId}`)).toBeUndefined();
    expect(await (await store())('RefreshToken').find(`r-g-${notes.clientId}`)).toBeUndefined();
    expect(await rowsOf(realm.id, keep.clientId)).toHaveLength(4);
    expect((await c.apps.list()).apps.map((a) => a.name)).toEqual(['Keep']);
    expect((await h.caller({ token: other.token }).apps.list()).apps.map((a) => a.name)).toEqual(['Notes']);

    const events = await h.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, user.id), eq(accountEvents.type, 'app_access_removed')));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ appClientId: notes.clientId, appName: 'Notes', clientIp: '192.0.2.7' });
    // The activity page names the app.
    const activity = await c.security.activity({});
    expect(activity.events[0]).toMatchObject({ type: 'app_access_removed', app: 'Notes', failed: false });

    // Removed already: the same answer as an app it never had.
    expect(await problemOf(c.apps.revoke({ client_id: notes.clientId }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('answers an unknown, malformed or ungranted app, or another realm’s, with one 404, and changes nothing', async () => {
    const { user, token } = await registerUser(h);
    const subject = await subjectOf(user.id);
    await h.realm('acme');
    const elsewhere = await granted(subject, { realm: 'acme', name: 'Elsewhere' });
    const { client: never } = await createClient(h.db.db, 'default', {
      name: 'Never',
      redirectUris: ['https://never.example/cb'],
    });
    const c = h.caller({ token });
    for (const client_id of ['nope', "' or 1=1 --", never.clientId, elsewhere.clientId])
      expect(await problemOf(c.apps.revoke({ client_id }))).toMatchObject({ status: 404, code: 'not_found' });
    for (const client_id of ['', 'x'.repeat(201)])
      expect(await problemOf(c.apps.revoke({ client_id }))).toMatchObject({
        status: 422,
        code: 'validation_failed',
        fields: { client_id: 'required' },
      });
    expect(await problemOf(c.apps.revoke({} as { client_id: string }))).toMatchObject({
      status: 422,
      fields: { client_id: 'required' },
    });
    expect(await rowsOf((await realmOf('acme')).id, elsewhere.clientId)).toHaveLength(4);
    const types = (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id))).map(
      (e) => e.type,
    );
    expect(types).not.toContain('app_access_removed');
  });

  it('counts removals against the limit on account writes', async () => {
    const { token } = await registerUser(h);
    const limited = h.caller({ token, limit: (action) => (action === 'accountWrite' ? 30 : null) });
    expect(await problemOf(limited.apps.revoke({ client_id: 'nope' }))).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfter: 30,
    });
  });

  it('records each sign-in to an app; the first one to an app mails a notice to a confirmed address, in its language', async () => {
    const { user, email } = await registerUser(h);
    const subject = await subjectOf(user.id);
    const realm = await realmOf();
    const { client } = await createClient(h.db.db, 'default', {
      name: 'Notes',
      redirectUris: ['https://n.example/cb'],
    });
    const signIn = (clientId = client.clientId, at: { subject?: string } = {}) =>
      recordAppSignIn(h.db.db, {
        realm: shownRealm(realm, h.config.productName),
        subject: at.subject ?? subject,
        clientId,
        clientIp: '192.0.2.9',
        userAgent: 'TestBrowser/1.0',
        mail: { cap: h.config.mailCap, origin: 'http://default.example.test/' },
      });

    // Unconfirmed address: the event, and no mail.
    expect(await signIn()).toEqual({ recorded: true, first: true });
    expect(await mailsTo(h.db.db, email, 'app_signed_in')).toHaveLength(0);

    const second = await registerUser(h);
    await h.db.db.update(users).set({ emailVerifiedAt: new Date(), locale: 'de' }).where(eq(users.id, second.user.id));
    const secondSubject = await subjectOf(second.user.id);
    expect(await signIn(client.clientId, { subject: secondSubject })).toEqual({ recorded: true, first: true });
    expect(await signIn(client.clientId, { subject: secondSubject })).toEqual({ recorded: true, first: false });
    const mails = await mailsTo(h.db.db, second.email, 'app_signed_in');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.locale).toBe('de');
    expect(mails[0]!.payload).toMatchObject({
      appName: 'Notes',
      ip: '192.0.2.9',
      appsLink: 'http://default.example.test/settings/apps',
      recoverLink: 'http://default.example.test/forgot-password',
    });
    for (const locale of ['en', 'de', 'fr'] as const) {
      const mail = renderMail('app_signed_in', locale, mails[0]!.payload as never);
      expect(mail.subject).toContain('Notes');
      expect(mail.text).toContain('http://default.example.test/settings/apps');
      expect(mail.html).toContain('Notes');
    }
    // Another app is a first sign-in again.
    const { client: wiki } = await createClient(h.db.db, 'default', {
      name: 'Wiki',
      redirectUris: ['https://w.example/cb'],
    });
    expect(await signIn(wiki.clientId, { subject: secondSubject })).toEqual({ recorded: true, first: true });
    expect(await mailsTo(h.db.db, second.email, 'app_signed_in')).toHaveLength(2);

    const events = await h.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, second.user.id), eq(accountEvents.type, 'app_signed_in')));
    expect(events.map((e) => e.appName).sort()).toEqual(['Notes', 'Notes', 'Wiki']);
    const activity = await h.caller({ token: second.token }).security.activity({});
    expect(activity.events[0]).toMatchObject({ type: 'app_signed_in', app: 'Wiki' });

    // An app or an account that is gone, or a subject that is none, records nothing.
    expect(await signIn('no-such-app')).toEqual({ recorded: false, first: false });
    expect(await signIn(client.clientId, { subject: '00000000-0000-4000-8000-000000000000' })).toEqual({
      recorded: false,
      first: false,
    });
    expect(await signIn(client.clientId, { subject: 'not a uuid' })).toEqual({ recorded: false, first: false });
  });
});
