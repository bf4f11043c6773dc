import { generateKeyPair, randomBytes, type JsonWebKey } from 'node:crypto';
import { promisify } from 'node:util';
import { and, asc, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { oidcSigningKeys, type Database } from '@accounts/db';
import { ago } from '../kernel/db-time.js';
import { RETIRED_KEY_KEPT_MS } from '../kernel/oidc-lifetimes.js';
import type { Vault } from '../kernel/vault.js';
import { findRealm } from '../records/realms.js';
import { ClientError } from './clients.js';

// Each realm signs its ID tokens with keys of its own (RS256), made at the first use and kept
// sealed under SECRET_KEY (a dump of the database holds no private key). Rotation makes a new
// current key and retires the old one, which stays published until every ID token it signed has
// expired (RETIRED_KEY_KEPT_MS), then is purged. The provider publishes only the public parts.

const makeKeyPair = promisify(generateKeyPair);

/** A private signing key as the provider takes it (its `jwks`). */
export type SigningJwk = JsonWebKey & { kid: string; alg: 'RS256'; use: 'sig' };

/** What the vault binds a sealed key to: its realm and kid, so it opens for no other row. */
const boundTo = (realmId: string, kid: string) => `oidc-signing-key:${realmId}:${kid}`;

/** The keys a realm publishes: the current one, then those retired recently enough. */
const published = (realmId: string) =>
  and(
    eq(oidcSigningKeys.realmId, realmId),
    or(isNull(oidcSigningKeys.retiredAt), gt(oidcSigningKeys.retiredAt, ago(RETIRED_KEY_KEPT_MS))),
  );

/** The current key first (the provider signs with the first), then the retired, newest first. */
const signingOrder = [sql`${oidcSigningKeys.retiredAt} is not null`, desc(oidcSigningKeys.createdAt)];

async function newSigningKey(vault: Vault, realmId: string) {
  const kid = randomBytes(12).toString('base64url');
  const { privateKey } = await makeKeyPair('rsa', { modulusLength: 2048 });
  const jwk: SigningJwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  return { realmId, kid, privateJwk: vault.seal(JSON.stringify(jwk), boundTo(realmId, kid)) };
}

/**
 * The realm's signing keys, the current one first, made now when it has none. Two gateways
 * making the first at once keep one: the current key is unique per realm.
 */
export async function realmSigningKeys(db: Database, vault: Vault, realmId: string): Promise<SigningJwk[]> {
  const read = () =>
    db
      .select()
      .from(oidcSigningKeys)
      .where(published(realmId))
      .orderBy(...signingOrder);
  let rows = await read();
  if (!rows.some((r) => r.retiredAt === null)) {
    await db
      .insert(oidcSigningKeys)
      .values(await newSigningKey(vault, realmId))
      .onConflictDoNothing();
    rows = await read();
  }
  return rows.map((r) => JSON.parse(vault.open(r.privateJwk, boundTo(realmId, r.kid))) as SigningJwk);
}

/**
 * What the realm publishes now, as one string of kids (current first): a provider built with
 * other keys is built again, so a rotation by another process signs with the new key at once.
 */
export async function signingKeysVersion(db: Database, realmId: string): Promise<string> {
  const rows = await db
    .select({ kid: oidcSigningKeys.kid })
    .from(oidcSigningKeys)
    .where(published(realmId))
    .orderBy(...signingOrder);
  return rows.map((r) => r.kid).join(' ');
}

/** A new current key for the realm; the one it replaces is retired, still published for a while. */
export async function rotateSigningKeys(
  db: Database,
  vault: Vault,
  realmSlug: string,
): Promise<{ kid: string; retired: string[] }> {
  const realm = await findRealm(db, realmSlug);
  if (!realm) throw new ClientError(`There is no realm "${realmSlug}".`);
  const key = await newSigningKey(vault, realm.id);
  const retired = await db.transaction(async (tx) => {
    const gone = await tx
      .update(oidcSigningKeys)
      .set({ retiredAt: sql`now()` })
      .where(and(eq(oidcSigningKeys.realmId, realm.id), isNull(oidcSigningKeys.retiredAt)))
      .returning({ kid: oidcSigningKeys.kid });
    await tx.insert(oidcSigningKeys).values(key);
    return gone.map((g) => g.kid);
  });
  return { kid: key.kid, retired };
}

/** The realm's published kids, oldest first, with when each was retired (for the operator). */
export async function listSigningKeys(db: Database, realmId: string) {
  return db
    .select({ kid: oidcSigningKeys.kid, createdAt: oidcSigningKeys.createdAt, retiredAt: oidcSigningKeys.retiredAt })
    .from(oidcSigningKeys)
    .where(published(realmId))
    .orderBy(asc(oidcSigningKeys.createdAt));
}
