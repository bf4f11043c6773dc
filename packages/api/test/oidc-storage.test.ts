import { oidcArtifacts, oidcClients, oidcLogouts, oidcSigningKeys, sessions, users } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../src/operator/retention.js';
import { findRealm } from '../src/records/realms.js';
import {
  artifactStore,
  bindProviderSession,
  inRotationScope,
  latestGrantId,
  takeSuccessorId,
} from '../src/oidc/artifacts.js';
import { claimDueLogouts } from '../src/oidc/logouts.js';
import {
  ClientError,
  clientSecretMatches,
  clientUriProblem,
  createClient,
  deleteClient,
  listClients,
  rotateClientSecret,
} from '../src/oidc/clients.js';
import { findAccountBySubject, signedInSession } from '../src/oidc/accounts.js';
import { realmSigningKeys, rotateSigningKeys, signingKeysVersion } from '../src/oidc/keys.js';
import { hashToken } from '../src/records/tokens.js';
import { registerUser, useHarness } from './harness.js';

class Consumed extends Error {}

// The OpenID Connect provider's storage on a real database: the adapter's models per realm, the
// atomic consume the refresh rule needs, the registered apps with their secrets' digests only,
// the signing keys sealed under SECRET_KEY, and the accounts' subjects.
describe.each(testDrivers())('the OpenID Connect storage on %s', (driver) => {
  const h = useHarness(driver);
  const realmId = async (slug = 'default') => (await findRealm(h.db.db, slug))!.id;
  const store = async (slug = 'default') =>
    artifactStore(h.db.db, await realmId(slug), {
      alreadyConsumed: () => new Consumed('already used'),
      vault: h.vault,
    });

  it('keeps the provider models per realm: find, findByUid, expiry, destroy, revokeByGrantId', async () => {
    await h.realm('acme');
    const tokens = (await store())('RefreshToken');
    await tokens.upsert('t1', { jti: 't1', grantId: 'g1', accountId: 'a', clientId: 'c' }, 60);
    await tokens.upsert('t2', { jti: 't2', grantId: 'g1' }, 60);
    await tokens.upsert('t3', { jti: 't3', grantId: 'g2' }, 60);
    expect(await tokens.find('t1')).toEqual({ jti: 't1', grantId: 'g1', accountId: 'a', clientId: 'c' });
    // Another realm's store, or another model, finds nothing of it.
    expect(await (await store('acme'))('RefreshToken').find('t1')).toBeUndefined();
    expect(await (await store())('AccessToken').find('t1')).toBeUndefined();

    await tokens.revokeByGrantId('g1');
    expect(await tokens.find('t1')).toBeUndefined();
    expect(await tokens.find('t2')).toBeUndefined();
    expect(await tokens.find('t3')).toMatchObject({ jti: 't3' });
    await tokens.destroy('t3');
    expect(await tokens.find('t3')).toBeUndefined();

    const sessionsStore = (await store())('Session');
    await sessionsStore.upsert('s1', { jti: 's1', uid: 'u1', accountId: 'a' }, 60);
    expect(await sessionsStore.findByUid('u1')).toMatchObject({ uid: 'u1', accountId: 'a' });
    expect(await sessionsStore.find('s1')).toMatchObject({ jti: 's1', uid: 'u1' });
    // A second save with the same id replaces the payload.
    await sessionsStore.upsert('s1', { jti: 's1', uid: 'u1', accountId: 'b' }, 60);
    expect(await sessionsStore.findByUid('u1')).toMatchObject({ accountId: 'b' });

    // Past its expiry a row is never found, and the purge deletes it.
    await tokens.upsert('old', { jti: 'old' }, 60);
    await h.db.db
      .update(oidcArtifacts)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(oidcArtifacts.id, hashToken('old')));
    expect(await tokens.find('old')).toBeUndefined();
    const purged = await purgeExpired(h.db.db, h.config, { eventRetentionMs: 90 * 86_400_000 });
    expect(purged.oidcArtifacts).toBeGreaterThanOrEqual(1);
    expect(
      await h.db.db
        .select()
        .from(oidcArtifacts)
        .where(eq(oidcArtifacts.id, hashToken('old'))),
    ).toHaveLength(0);
    expect(await sessionsStore.findByUid('u1')).toBeDefined();
  });

  it('consumes a code or refresh token once: of concurrent consumes exactly one wins', async () => {
    const codes = (await store())('AuthorizationCode');
    await codes.upsert('code1', { jti: 'code1' }, 60);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => codes.consume('code1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect(r.reason).toBeInstanceOf(Consumed);
    const found = await codes.find('code1');
    expect(found?.consumed).toEqual(expect.any(Number));
  });

  it('keeps a bearer id only as its digest, and the payload without it; a grant id as it is', async () => {
    const access = (await store())('AccessToken');
    await access.upsert('secret-access-token', { jti: 'secret-access-token', accountId: 'a', clientId: 'c' }, 60);
    await (await store())('Grant').upsert('grant-plain', { jti: 'grant-plain', accountId: 'a', clientId: 'c' }, 60);
    const rows = await h.db.db.select().from(oidcArtifacts);
    expect(JSON.stringify(rows)).not.toContain('secret-access-token');
    expect(rows.find((r) => r.kind === 'AccessToken')!.id).toBe(hashToken('secret-access-token'));
    expect(rows.find((r) => r.kind === 'Grant')!.id).toBe('grant-plain');
    expect(await access.find('secret-access-token')).toMatchObject({ jti: 'secret-access-token', accountId: 'a' });
  });

  it('gives a rotated refresh token repeated within the grace period the same successor, once consumed for good', async () => {
    const tokens = (await store())('RefreshToken');
    await tokens.upsert('rt1', { jti: 'rt1', grantId: 'g' }, 60);
    /** One token request: find, consume, then the successor's id the provider would give it. */
    const rotate = () =>
      inRotationScope(async () => {
        const found = await tokens.find('rt1');
        if (found?.consumed) throw new Consumed('reuse');
        await tokens.consume('rt1');
        return takeSuccessorId();
      });
    const results = await Promise.allSettled(Array.from({ length: 6 }, rotate));
    const successors = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    // Every request, the concurrent ones too, got one and the same successor.
    expect(new Set(successors).size).toBe(1);
    expect(successors[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Presented again later, within the grace period: still that successor.
    expect(await rotate()).toBe(successors[0]);
    // The successor is sealed, never stored in clear.
    expect(JSON.stringify(await h.db.db.select().from(oidcArtifacts))).not.toContain(successors[0]!);
    // Past the grace period the token reads as consumed (the provider then revokes the grant).
    await h.db.db
      .update(oidcArtifacts)
      .set({ consumedAt: sql`now() - interval '11 seconds'` })
      .where(eq(oidcArtifacts.id, hashToken('rt1')));
    await expect(rotate()).rejects.toThrow('reuse');
    // Outside a token request (no rotation scope) a consumed token is never given a successor.
    expect(await tokens.find('rt1')).toMatchObject({ consumed: expect.any(Number) });
  });

  it("ends the codes and tokens bound to a session here with it, and queues the apps' logouts", async () => {
    const { user, token } = await registerUser(h);
    const realm = (await findRealm(h.db.db, 'default'))!;
    const signIn = (await signedInSession(h.db.db, realm, token, h.config))!;
    const { client } = await createClient(h.db.db, 'default', {
      name: 'Told',
      redirectUris: ['https://told.example/cb'],
      backchannelLogoutUri: 'https://told.example/logout',
    });
    const { client: silent } = await createClient(h.db.db, 'default', {
      name: 'Silent',
      redirectUris: ['https://silent.example/cb'],
    });
    const s = await store();
    const authorizations = { [client.clientId]: { sid: 'sid-1', grantId: 'g1' }, [silent.clientId]: { sid: 'sid-2' } };
    await s('Session').upsert('ps1', { jti: 'ps1', uid: 'uid1', accountId: signIn.accountId, authorizations }, 600);
    await s('AccessToken').upsert(
      'at-bound',
      { jti: 'at-bound', accountId: signIn.accountId, sessionUid: 'uid1', expiresWithSession: true },
      600,
    );
    await bindProviderSession(h.db.db, realm.id, 'uid1', signIn.accountId, signIn.sessionId);
    // A token made after the binding is bound at once; an offline one outlives the session.
    await s('RefreshToken').upsert(
      'rt-bound',
      { jti: 'rt-bound', accountId: signIn.accountId, sessionUid: 'uid1', expiresWithSession: true },
      600,
    );
    await s('RefreshToken').upsert(
      'rt-offline',
      { jti: 'rt-offline', accountId: signIn.accountId, sessionUid: 'uid1', expiresWithSession: false },
      600,
    );
    // Another account cannot bind this provider session to its own.
    await bindProviderSession(h.db.db, realm.id, 'uid1', 'someone-else', signIn.sessionId);

    await h.db.db.delete(sessions).where(eq(sessions.userId, user.id));
    // The provider session stays, bound to nothing: its next use asks for a sign-in.
    const [unbound] = await h.db.db
      .select()
      .from(oidcArtifacts)
      .where(eq(oidcArtifacts.id, hashToken('ps1')));
    expect(unbound).toMatchObject({ kind: 'Session', sessionId: null });
    expect(await s('AccessToken').find('at-bound')).toBeUndefined();
    expect(await s('RefreshToken').find('rt-bound')).toBeUndefined();
    expect(await s('RefreshToken').find('rt-offline')).toBeDefined();
    // Only the app with a back-channel logout URI is to be told, with the account's subject and its sid.
    const queued = await h.db.db.select().from(oidcLogouts);
    expect(queued).toEqual([
      expect.objectContaining({ clientId: client.clientId, subject: signIn.accountId, sid: 'sid-1', attempts: 0 }),
    ]);
    const [claimed] = await claimDueLogouts(h.db.db, 10);
    expect(claimed).toMatchObject({ clientId: client.clientId, attempts: 1 });
    // Leased: another sender does not take it meanwhile.
    expect(await claimDueLogouts(h.db.db, 10)).toEqual([]);
    // The account deleted: nothing of it stays with the provider, the offline token included.
    await h.db.db.delete(users).where(eq(users.id, user.id));
    expect(await s('RefreshToken').find('rt-offline')).toBeUndefined();
    expect(await h.db.db.select().from(oidcArtifacts).where(eq(oidcArtifacts.accountId, signIn.accountId))).toEqual([]);
  });

  it('remembers the newest live grant of an account for an app', async () => {
    const grants = (await store())('Grant');
    await grants.upsert('grant-a', { jti: 'grant-a', accountId: 'acc', clientId: 'app' }, 3600);
    await new Promise((r) => setTimeout(r, 5));
    await grants.upsert('grant-b', { jti: 'grant-b', accountId: 'acc', clientId: 'app' }, 3600);
    expect(await latestGrantId(h.db.db, await realmId(), 'acc', 'app')).toBe('grant-b');
    expect(await latestGrantId(h.db.db, await realmId(), 'acc', 'other')).toBeNull();
    expect(await latestGrantId(h.db.db, await realmId('acme'), 'acc', 'app')).toBeNull();
  });

  it('registers apps: exact https or loopback http addresses, a secret shown once and kept as a digest', async () => {
    expect(clientUriProblem('https://app.example.com/cb')).toBeNull();
    expect(clientUriProblem('http://localhost:8080/cb')).toBeNull();
    expect(clientUriProblem('http://127.0.0.1/cb')).toBeNull();
    expect(clientUriProblem('http://[::1]:9000/cb')).toBeNull();
    expect(clientUriProblem('http://app.example.com/cb')).toMatch(/must use https/);
    expect(clientUriProblem('http://localhost.example.com/cb')).toMatch(/must use https/);
    expect(clientUriProblem('com.example.app:/cb')).toMatch(/must use https/);
    expect(clientUriProblem('https://app.example.com/cb#x')).toMatch(/fragment/);
    expect(clientUriProblem('/cb')).toMatch(/absolute/);

    await expect(
      createClient(h.db.db, 'default', { name: 'Bad', redirectUris: ['http://app.example.com/cb'] }),
    ).rejects.toThrow(ClientError);
    await expect(createClient(h.db.db, 'nope', { name: 'X', redirectUris: ['https://a.example/cb'] })).rejects.toThrow(
      'There is no realm "nope".',
    );
    await expect(createClient(h.db.db, 'default', { name: 'X', redirectUris: [] })).rejects.toThrow(/redirect-uri/);
    await expect(
      createClient(h.db.db, 'default', {
        name: 'X',
        redirectUris: ['https://a.example/cb'],
        backchannelLogoutUri: 'http://a.example/logout',
      }),
    ).rejects.toThrow(/back-channel logout URI/);

    const { client, clientSecret } = await createClient(h.db.db, 'default', {
      name: 'Shop',
      redirectUris: ['https://shop.example/cb'],
      postLogoutRedirectUris: ['https://shop.example/'],
    });
    expect(client.clientId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await h.db.db.select().from(oidcClients).where(eq(oidcClients.clientId, client.clientId));
    expect(JSON.stringify(row)).not.toContain(clientSecret);
    expect(clientSecretMatches(clientSecret, row!.secretDigest)).toBe(true);
    expect(clientSecretMatches(`${clientSecret}x`, row!.secretDigest)).toBe(false);

    const pub = await createClient(h.db.db, 'default', {
      name: 'SPA',
      redirectUris: ['http://localhost:5173/cb'],
      public: true,
    });
    expect(pub.clientSecret).toBeNull();
    await expect(rotateClientSecret(h.db.db, 'default', pub.client.clientId)).rejects.toThrow(/public/);

    const rotated = await rotateClientSecret(h.db.db, 'default', client.clientId);
    const [after] = await h.db.db.select().from(oidcClients).where(eq(oidcClients.clientId, client.clientId));
    expect(clientSecretMatches(clientSecret, after!.secretDigest)).toBe(false);
    expect(clientSecretMatches(rotated.clientSecret, after!.secretDigest)).toBe(true);

    expect((await listClients(h.db.db, 'default')).map((c) => c.name)).toEqual(expect.arrayContaining(['Shop', 'SPA']));
    // Deleting an app ends what it holds.
    await (await store())('Grant').upsert('g-shop', { jti: 'g-shop', accountId: 'x', clientId: client.clientId }, 60);
    await deleteClient(h.db.db, 'default', client.clientId);
    expect(await (await store())('Grant').find('g-shop')).toBeUndefined();
    expect(await (await store())('Client').find(client.clientId)).toBeUndefined();
    await expect(deleteClient(h.db.db, 'default', client.clientId)).rejects.toThrow(/There is no app/);
    // The provider reads a registered app's metadata through the Client model.
    expect(await (await store())('Client').find(pub.client.clientId)).toMatchObject({
      client_id: pub.client.clientId,
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://localhost:5173/cb'],
    });
  });

  it('makes a realm its signing key at first use, sealed, and rotates it keeping the old one published', async () => {
    await h.realm('keys');
    const id = await realmId('keys');
    // Two first uses at once keep one current key.
    const [a, b] = await Promise.all([realmSigningKeys(h.db.db, h.vault, id), realmSigningKeys(h.db.db, h.vault, id)]);
    expect(a.map((k) => k.kid)).toEqual(b.map((k) => k.kid));
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', d: expect.any(String) });
    const [stored] = await h.db.db.select().from(oidcSigningKeys).where(eq(oidcSigningKeys.realmId, id));
    expect(stored!.privateJwk).not.toContain(a[0]!.d);

    const before = await signingKeysVersion(h.db.db, id);
    const { kid, retired } = await rotateSigningKeys(h.db.db, h.vault, 'keys');
    expect(retired).toEqual([a[0]!.kid]);
    const keys = await realmSigningKeys(h.db.db, h.vault, id);
    expect(keys.map((k) => k.kid)).toEqual([kid, a[0]!.kid]);
    expect(await signingKeysVersion(h.db.db, id)).not.toBe(before);

    // Once every ID token the old key signed has expired, it is no longer published, then purged.
    await h.db.db
      .update(oidcSigningKeys)
      .set({ retiredAt: sql`now() - interval '2 hours'` })
      .where(and(eq(oidcSigningKeys.realmId, id), eq(oidcSigningKeys.kid, a[0]!.kid)));
    expect((await realmSigningKeys(h.db.db, h.vault, id)).map((k) => k.kid)).toEqual([kid]);
    const purged = await purgeExpired(h.db.db, h.config, { eventRetentionMs: 90 * 86_400_000 });
    expect(purged.oidcKeys).toBe(1);
    await expect(rotateSigningKeys(h.db.db, h.vault, 'nope')).rejects.toThrow('There is no realm "nope".');
  });

  it('finds an account by its subject, never by its id or email, and tells how its session signed in', async () => {
    const { user, token } = await registerUser(h);
    const realm = (await findRealm(h.db.db, 'default'))!;
    const signIn = await signedInSession(h.db.db, realm, token, h.config);
    expect(signIn).toMatchObject({ amr: ['pwd'], acr: 'https://refeds.org/profile/sfa', userId: user.id });
    expect(signIn!.accountId).not.toBe(user.id);
    expect(signIn!.accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await findAccountBySubject(h.db.db, realm.id, signIn!.accountId))?.id).toBe(user.id);
    expect(await findAccountBySubject(h.db.db, realm.id, user.id)).toBeNull();
    expect(await findAccountBySubject(h.db.db, realm.id, user.email)).toBeNull();
    expect(await findAccountBySubject(h.db.db, await realmId('acme'), signIn!.accountId)).toBeNull();
    const [row] = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(row!.amr).toEqual(['pwd']);
    expect(await signedInSession(h.db.db, realm, 'not-a-token', h.config)).toBeNull();
  });
});
