import { addProvider, createVault, findRealm, parseSecretKey } from '@accounts/api';
import { upstreamIdentities, upstreamProviders, users, type Database } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { TEST_SECRET_KEY } from './gateway.js';
import { expectPostRefusals, type Get, type Post } from './openapi.js';

/** The refusals a browser's POST step shares before its redirect: those answered with a body. */
async function expectRedirectPostRefusals(post: Post, url: string, fields: Record<string, string>, cookie: string) {
  const form = new URLSearchParams(fields).toString();
  expect((await post(url, `${form}&x=%FF`, { cookie })).json.code).toBe('invalid_body');
  expect((await post(url, form, { cookie }, 'nope.localhost')).json.code).toBe('realm_not_found');
  expect((await post(url, `${form}&pad=${'x'.repeat(20 * 1024)}`, { cookie })).json.code).toBe('payload_too_large');
  expect((await post(url, form, { cookie, 'content-type': 'text/plain' })).json.code).toBe('unsupported_media_type');
}

/**
 * Answers every documented status of the upstream sign-in and connected-accounts routes (but
 * 503) through the OpenAPI test's checked `post` and `get`. The provider here is never reached:
 * the whole journey with a live upstream is upstream.test.ts.
 */
export async function exerciseUpstreamRoutes({
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
  // The browser's steps: each answer a redirect, a refusal to the page that words it.
  expect((await get('/users/oauth/nope/start')).headers.location).toBe('/login?problem=provider_unknown');
  expect((await get('/users/oauth/nope/start', {}, 'nope.localhost')).json.code).toBe('realm_not_found');
  expect((await get('/users/oauth/nope/callback?state=forged&code=x')).headers.location).toMatch(/^\/login\?problem=/);
  expect((await get('/users/oauth/nope/callback', {}, 'nope.localhost')).json.code).toBe('realm_not_found');
  // A form_post answer for no flow of this site is kept for nothing: the GET it leads to is refused.
  const kept = await post('/users/oauth/nope/callback', { state: 'forged', code: 'x' }, { cookie: '' });
  expect(kept.headers.location).toBe('/users/oauth/nope/callback');
  await expectRedirectPostRefusals(post, '/users/oauth/nope/callback', { state: 'forged' }, '');
  const cross = await post(
    '/users/oauth/nope/callback',
    { state: 'forged' },
    { origin: 'https://appleid.apple.example', 'sec-fetch-site': 'cross-site' },
  );
  expect(cross.status, 'another site may post a form_post answer').toBe(303);

  expect((await post('/users/connections/connect', { provider: 'nope' }, { cookie })).headers.location).toMatch(
    /^\/settings\/connections\?problem=/,
  );
  expect((await post('/users/connections/connect', { provider: 'nope' })).headers.location).toBe(
    '/login?next=%2Fsettings%2Fconnections',
  );
  await expectRedirectPostRefusals(post, '/users/connections/connect', { provider: 'nope' }, cookie);
  expect(
    (
      await post(
        '/users/connections/connect',
        { provider: 'nope' },
        { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      )
    ).json.code,
  ).toBe('cross_origin');

  // The connected accounts: one, made here as a sign-in with the provider would.
  expect((await get('/users/connections')).json.code).toBe('unauthenticated');
  expect((await get('/users/connections', {}, 'nope.localhost')).json.code).toBe('realm_not_found');
  const vault = createVault(parseSecretKey(TEST_SECRET_KEY)!);
  await addProvider(
    db,
    vault,
    'default',
    { id: 'docs', issuer: 'https://id.example', clientId: 'c', clientSecret: 's', name: 'Docs ID' },
    false,
  );
  const realm = (await findRealm(db, 'default'))!;
  const [user] = await db.select().from(users).where(eq(users.email, email));
  const [provider] = await db.select().from(upstreamProviders).where(eq(upstreamProviders.slug, 'docs'));
  await db.insert(upstreamIdentities).values({
    realmId: realm.id,
    userId: user!.id,
    providerId: provider!.id,
    issuer: 'https://id.example',
    subject: 'docs-subject',
    email,
  });
  const listed = (await get('/users/connections', { cookie })).json;
  expect(listed.connections).toEqual([expect.objectContaining({ provider: 'docs', providerName: 'Docs ID', email })]);
  expect(listed.available).toEqual([]);

  await expectPostRefusals(post, { '/users/connections/remove': { provider: 'docs' } }, { cookie, signedIn: true });
  expect((await post('/users/connections/remove', { provider: 'elsewhere' }, { cookie })).json.code).toBe('not_found');
  // Without its password (an account the provider made) the only connection is the only way in.
  const hash = user!.passwordHash;
  await db.update(users).set({ passwordHash: 'none:docs' }).where(eq(users.id, user!.id));
  expect((await post('/users/connections/remove', { provider: 'docs' }, { cookie })).json.code).toBe(
    'connection_last_way_in',
  );
  await db.update(users).set({ passwordHash: hash }).where(eq(users.id, user!.id));
  expect((await post('/users/connections/remove', { provider: 'docs' }, { cookie })).json).toEqual({ ok: true });
  expect((await get('/users/connections', { cookie })).json.connections).toEqual([]);
  expect((await post('/users/connections/remove', { provider: 'docs' }, { cookie })).json.code).toBe('not_found');
  // Counted against the limit on account writes.
  let writes = 0;
  while ((await post('/users/connections/remove', { provider: 'docs' }, { cookie })).status === 404)
    expect(++writes).toBeLessThan(100);
  expect((await post('/users/connections/remove', { provider: 'docs' }, { cookie })).json.code).toBe('rate_limited');
}
