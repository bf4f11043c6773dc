import { artifactStore, createClient, createVault, findRealm } from '@accounts/api';
import { users, type Database } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { expectPostRefusals, type Get, type Post } from './openapi.js';

/** An app registered in the default realm and granted to the account of `email` (a grant and a token of it). */
export async function grantedApp(db: Database, email: string, name = 'Notes') {
  const realm = (await findRealm(db, 'default'))!;
  const [user] = await db.select().from(users).where(eq(users.email, email));
  const { client } = await createClient(db, 'default', { name, redirectUris: ['https://notes.example/cb'] });
  // (No refresh token is consumed here, so any vault does.)
  const store = artifactStore(db, realm.id, {
    alreadyConsumed: () => new Error('already used'),
    vault: createVault(Buffer.alloc(32, 1)),
  });
  const base = { accountId: user!.subject, clientId: client.clientId };
  await store('Grant').upsert(`g-${client.clientId}`, { ...base, openid: { scope: 'openid email' } }, 3600);
  await store('AccessToken').upsert(`a-${client.clientId}`, { ...base, grantId: `g-${client.clientId}` }, 600);
  return client;
}

/**
 * Answers every documented status of the apps routes (but 503) through the OpenAPI test's
 * checked `post` and `get`, so each is held to the document.
 */
export async function exerciseAppsRoutes({
  post,
  get,
  db,
  signedUp,
}: {
  post: Post;
  get: Get;
  db: Database;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  const { email, cookie } = await signedUp();
  expect((await get('/users/apps', { cookie })).json).toEqual({ apps: [] });
  expect((await get('/users/apps')).json.code).toBe('unauthenticated');
  expect((await get('/users/apps', {}, 'nope.localhost')).json.code).toBe('realm_not_found');
  const app = await grantedApp(db, email);
  const listed = (await get('/users/apps', { cookie })).json.apps;
  expect(listed).toEqual([
    expect.objectContaining({ clientId: app.clientId, name: 'Notes', firstParty: false, scopes: ['openid', 'email'] }),
  ]);

  await expectPostRefusals(post, { '/users/apps/revoke': { client_id: app.clientId } }, { cookie, signedIn: true });
  expect((await post('/users/apps/revoke', { client_id: 'not-an-app-of-mine' }, { cookie })).json.code).toBe(
    'not_found',
  );
  expect((await post('/users/apps/revoke', { client_id: app.clientId }, { cookie })).json).toEqual({ ok: true });
  expect((await get('/users/apps', { cookie })).json.apps).toEqual([]);
  expect((await post('/users/apps/revoke', { client_id: app.clientId }, { cookie })).json.code).toBe('not_found');
  // Counted against the limit on account writes.
  let writes = 0;
  while ((await post('/users/apps/revoke', { client_id: 'nope' }, { cookie })).status === 404)
    expect(++writes).toBeLessThan(100);
  expect((await post('/users/apps/revoke', { client_id: 'nope' }, { cookie })).json.code).toBe('rate_limited');
}
