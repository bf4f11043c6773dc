import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { oidcArtifacts, oidcClients, type Database, type OidcClient, type Realm } from '@accounts/db';
import { findRealm } from '../records/realms.js';

// The apps registered to sign people in with a realm's accounts. An operator registers them (npm
// run client); there is no dynamic registration. A confidential app's secret is shown once and
// kept only as its SHA-256: 256 random bits need no slow hash.

/** A refused client command, said as it is to the operator. */
export class ClientError extends Error {}

/** Hosts a plain http redirect may name (RFC 8252 §7.3, §8.3): this machine's own. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why an address an app registers (a redirect, a post-logout redirect, a back-channel logout
 * URI) is refused, or null when it may be registered: absolute, https, or http on a loopback
 * host only, without a fragment or credentials. The provider checks every client with it too.
 */
export function clientUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not hold a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return url.protocol === 'http:'
    ? 'must use https (plain http only on localhost, 127.0.0.1 or [::1])'
    : 'must use https (or plain http on localhost, 127.0.0.1 or [::1])';
}

/** What a new app is registered with. */
export interface NewClient {
  name: string;
  redirectUris: readonly string[];
  postLogoutRedirectUris?: readonly string[];
  backchannelLogoutUri?: string | null;
  /** A single-page or native app: no secret, PKCE alone. */
  public?: boolean;
  /** The service's own app: no consent asked. */
  firstParty?: boolean;
}

/** An app as the operator sees it (never its secret's digest). */
export interface ClientListing {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  public: boolean;
  firstParty: boolean;
  createdAt: Date;
}

const NAME_MAX = 100;

const listing = (c: OidcClient): ClientListing => ({
  clientId: c.clientId,
  name: c.name,
  redirectUris: c.redirectUris,
  postLogoutRedirectUris: c.postLogoutRedirectUris,
  backchannelLogoutUri: c.backchannelLogoutUri,
  public: c.public,
  firstParty: c.firstParty,
  createdAt: c.createdAt,
});

/** A client secret's digest as stored. */
const secretDigest = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Whether a presented secret is the one whose digest is stored (compared in constant time). */
export function clientSecretMatches(presented: unknown, digest: unknown): boolean {
  if (typeof presented !== 'string' || typeof digest !== 'string' || digest.length !== 64) return false;
  return timingSafeEqual(Buffer.from(secretDigest(presented), 'hex'), Buffer.from(digest, 'hex'));
}

async function realmNamed(db: Database, slug: string): Promise<Realm> {
  const realm = await findRealm(db, slug);
  if (!realm) throw new ClientError(`There is no realm "${slug}".`);
  return realm;
}

function checkedUris(label: string, uris: readonly string[]): string[] {
  for (const uri of uris) {
    const problem = clientUriProblem(uri);
    if (problem) throw new ClientError(`The ${label} ${JSON.stringify(uri)} ${problem}.`);
  }
  return [...new Set(uris)];
}

/** Registers an app in the realm; a confidential one's secret is in the answer, and nowhere else ever. */
export async function createClient(
  db: Database,
  realmSlug: string,
  input: NewClient,
): Promise<{ client: ClientListing; clientSecret: string | null }> {
  const realm = await realmNamed(db, realmSlug);
  const name = input.name.trim();
  if (!name) throw new ClientError('An app needs a name (--name).');
  if ([...name].length > NAME_MAX) throw new ClientError(`An app's name has at most ${NAME_MAX} characters.`);
  if (input.redirectUris.length === 0) throw new ClientError('An app needs at least one --redirect-uri.');
  const redirectUris = checkedUris('redirect URI', input.redirectUris);
  const postLogoutRedirectUris = checkedUris('post-logout redirect URI', input.postLogoutRedirectUris ?? []);
  const backchannelLogoutUri = input.backchannelLogoutUri
    ? checkedUris('back-channel logout URI', [input.backchannelLogoutUri])[0]!
    : null;
  const clientSecret = input.public ? null : randomBytes(32).toString('base64url');
  const [row] = await db
    .insert(oidcClients)
    .values({
      realmId: realm.id,
      clientId: randomBytes(16).toString('base64url'),
      name,
      secretDigest: clientSecret && secretDigest(clientSecret),
      redirectUris,
      postLogoutRedirectUris,
      backchannelLogoutUri,
      public: input.public ?? false,
      firstParty: input.firstParty ?? false,
    })
    .returning();
  return { client: listing(row!), clientSecret };
}

export async function listClients(db: Database, realmSlug: string): Promise<ClientListing[]> {
  const realm = await realmNamed(db, realmSlug);
  const rows = await db
    .select()
    .from(oidcClients)
    .where(eq(oidcClients.realmId, realm.id))
    .orderBy(asc(oidcClients.createdAt), asc(oidcClients.clientId));
  return rows.map(listing);
}

/** The app `clientId` of the realm (a registered one, for the provider and the consent page), or null. */
export async function findClient(db: Database, realmId: string, clientId: string): Promise<OidcClient | null> {
  const [row] = await db
    .select()
    .from(oidcClients)
    .where(and(eq(oidcClients.realmId, realmId), eq(oidcClients.clientId, clientId)))
    .limit(1);
  return row ?? null;
}

/**
 * An app as the provider reads it (its client metadata): the code flow only, exact redirect URIs,
 * a confidential app authenticating with its secret (basic or post; the provider is handed the
 * digest and compares through clientSecretMatches), a public one with PKCE alone.
 */
export function clientMetadata(client: OidcClient): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...(client.secretDigest
      ? { client_secret: client.secretDigest, token_endpoint_auth_method: 'client_secret_basic' }
      : { token_endpoint_auth_method: 'none' }),
    application_type: 'web',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    ...(client.backchannelLogoutUri
      ? { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }
      : {}),
    first_party: client.firstParty,
  };
}

async function clientOf(db: Database, realm: Realm, clientId: string): Promise<OidcClient> {
  const client = await findClient(db, realm.id, clientId);
  if (!client) throw new ClientError(`There is no app ${clientId} in realm "${realm.slug}".`);
  return client;
}

/** Removes the app, and with it every grant, code and token it holds. */
export async function deleteClient(db: Database, realmSlug: string, clientId: string): Promise<ClientListing> {
  const realm = await realmNamed(db, realmSlug);
  const client = await clientOf(db, realm, clientId);
  await db.transaction(async (tx) => {
    await tx
      .delete(oidcArtifacts)
      .where(and(eq(oidcArtifacts.realmId, realm.id), eq(oidcArtifacts.clientId, clientId)));
    await tx.delete(oidcClients).where(and(eq(oidcClients.realmId, realm.id), eq(oidcClients.clientId, clientId)));
  });
  return listing(client);
}

/** A new secret for a confidential app: the old one stops working at once. */
export async function rotateClientSecret(
  db: Database,
  realmSlug: string,
  clientId: string,
): Promise<{ client: ClientListing; clientSecret: string }> {
  const realm = await realmNamed(db, realmSlug);
  const client = await clientOf(db, realm, clientId);
  if (client.public) throw new ClientError(`The app ${clientId} is public: it has no secret.`);
  const clientSecret = randomBytes(32).toString('base64url');
  await db
    .update(oidcClients)
    .set({ secretDigest: secretDigest(clientSecret) })
    .where(and(eq(oidcClients.realmId, realm.id), eq(oidcClients.clientId, clientId)));
  return { client: listing(client), clientSecret };
}
