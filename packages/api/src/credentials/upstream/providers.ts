import { and, asc, eq } from 'drizzle-orm';
import { upstreamProviders, type Database, type UpstreamProvider } from '@accounts/db';
import { PROVIDER_ID } from '@accounts/validators';
import type { Vault } from '../../kernel/vault.js';
import { findRealm } from '../../records/realms.js';
import { isProviderKind, KINDS, PROVIDER_KINDS, type OpenedProvider, type ProviderKind } from './kinds.js';

// The upstream identity providers of each realm, as an operator sets them (npm run realm --
// provider add|list|remove). The client secret (Apple: its private key) is sealed under SECRET_KEY.

/** A refused provider command, said as it is to the operator. */
export class ProviderError extends Error {}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why an issuer is refused, or null: https, or plain http on this machine when outgoing calls to
 * private addresses are allowed (ALLOW_PRIVATE_OUTBOUND, for tests and private networks).
 */
export function issuerProblem(issuer: string, allowPrivateOutbound: boolean): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username || url.password || url.search || url.hash) return 'must be a plain URL (no user, query or fragment)';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowPrivateOutbound && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https (plain http only on localhost, 127.0.0.1 or [::1] with ALLOW_PRIVATE_OUTBOUND=true)';
}

/** What a provider is added with; what the kind knows may be left out. */
export interface NewProvider {
  id: string;
  kind?: string;
  issuer?: string;
  clientId: string;
  /** The client secret; for Apple, the private key (PKCS #8 PEM) that signs it. */
  clientSecret: string;
  name?: string;
  scope?: string;
  /** Apple's team and key ids. */
  teamId?: string;
  keyId?: string;
  /** The upstream's `amr` containing `mfa` stands for this service's second step. */
  acceptUpstreamMfa?: boolean;
}

/** A provider as the operator and the sign-in page see it (never its secret). */
export interface ProviderListing {
  id: string;
  kind: ProviderKind;
  name: string;
  issuer: string;
  clientId: string;
  scope: string;
  acceptUpstreamMfa: boolean;
  createdAt: Date;
}

const sealedFor = (realmId: string, slug: string) => `upstream-provider:${realmId}:${slug}`;

async function realmOf(db: Database, slug: string) {
  const realm = await findRealm(db, slug);
  if (!realm) throw new ProviderError(`no realm "${slug}"`);
  return realm;
}

/** Adds a provider to a realm; refused when its id is taken or a setting is wrong. */
export async function addProvider(
  db: Database,
  vault: Vault,
  realmSlug: string,
  p: NewProvider,
  allowPrivateOutbound: boolean,
): Promise<ProviderListing> {
  const realm = await realmOf(db, realmSlug);
  if (!PROVIDER_ID.test(p.id))
    throw new ProviderError('the provider id must be 1–32 lower-case letters, digits or dashes (not first or last)');
  const kind = p.kind ?? 'oidc';
  if (!isProviderKind(kind)) throw new ProviderError(`--kind must be one of ${PROVIDER_KINDS.join(', ')}`);
  const strategy = KINDS[kind];
  const issuer = (p.issuer ?? strategy.defaults.issuer ?? '').replace(/\/$/, '');
  if (!issuer) throw new ProviderError('--issuer is required for an OpenID Connect provider');
  const problem = issuerProblem(issuer, allowPrivateOutbound);
  if (problem) throw new ProviderError(`--issuer ${problem}`);
  if (!p.clientId) throw new ProviderError('--client-id is required');
  if (!p.clientSecret) throw new ProviderError('--client-secret is required');
  if (kind === 'apple' && !(p.teamId && p.keyId))
    throw new ProviderError('an Apple provider needs --team-id and --key-id (its --client-secret is the key, PEM)');
  const options: Record<string, string | boolean> = { acceptUpstreamMfa: p.acceptUpstreamMfa ?? false };
  if (kind === 'apple') Object.assign(options, { teamId: p.teamId!, keyId: p.keyId! });
  const [row] = await db
    .insert(upstreamProviders)
    .values({
      realmId: realm.id,
      slug: p.id,
      kind,
      name: p.name?.trim() || strategy.defaults.name,
      issuer,
      clientId: p.clientId,
      clientSecret: vault.seal(p.clientSecret, sealedFor(realm.id, p.id)),
      scope: p.scope?.trim() || strategy.defaults.scope,
      options,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new ProviderError(`realm "${realmSlug}" already has a provider "${p.id}"`);
  return listing(row);
}

export function listing(row: UpstreamProvider): ProviderListing {
  return {
    id: row.slug,
    kind: row.kind as ProviderKind,
    name: row.name,
    issuer: row.issuer,
    clientId: row.clientId,
    scope: row.scope,
    acceptUpstreamMfa: row.options.acceptUpstreamMfa === true,
    createdAt: row.createdAt,
  };
}

/** The realm's providers, in the order they were added (the order of their buttons). */
export async function realmProviders(db: Database, realmId: string): Promise<UpstreamProvider[]> {
  return db
    .select()
    .from(upstreamProviders)
    .where(eq(upstreamProviders.realmId, realmId))
    .orderBy(asc(upstreamProviders.createdAt), asc(upstreamProviders.slug));
}

export async function listProviders(db: Database, realmSlug: string): Promise<ProviderListing[]> {
  const realm = await realmOf(db, realmSlug);
  return (await realmProviders(db, realm.id)).map(listing);
}

/** Removes a provider: its connected accounts and sign-ins under way go with it. */
export async function removeProvider(db: Database, realmSlug: string, id: string): Promise<void> {
  const realm = await realmOf(db, realmSlug);
  const gone = await db
    .delete(upstreamProviders)
    .where(and(eq(upstreamProviders.realmId, realm.id), eq(upstreamProviders.slug, id)))
    .returning({ id: upstreamProviders.id });
  if (!gone.length) throw new ProviderError(`realm "${realmSlug}" has no provider "${id}"`);
}

/** A provider of the realm by its id, with its secret opened; null when it has none by that id. */
export async function openProvider(
  db: Database,
  vault: Vault,
  realmId: string,
  id: string,
): Promise<OpenedProvider | null> {
  const [row] = await db
    .select()
    .from(upstreamProviders)
    .where(and(eq(upstreamProviders.realmId, realmId), eq(upstreamProviders.slug, id)));
  if (!row) return null;
  return { row, secret: vault.open(row.clientSecret, sealedFor(realmId, row.slug)) };
}

/** The same, by its row id (a flow's provider). */
export async function openProviderById(db: Database, vault: Vault, providerId: string): Promise<OpenedProvider | null> {
  const [row] = await db.select().from(upstreamProviders).where(eq(upstreamProviders.id, providerId));
  if (!row) return null;
  return { row, secret: vault.open(row.clientSecret, sealedFor(row.realmId, row.slug)) };
}
