import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { oidcArtifacts, type Database } from '@accounts/db';
import { fromNow } from '../kernel/db-time.js';
import { clientMetadata, findClient } from './clients.js';

// The OpenID Connect provider's storage (its Adapter interface, one adapter per model) over one
// table, each row bound to its realm: an id of one realm is never found in another. Times are the
// database's. `consume` is one conditional UPDATE, so of two requests using one code or refresh
// token at once (on one gateway or several) exactly one wins; the other is refused.

/** A stored model as the provider reads it back: its payload, marked when consumed. */
export type ArtifactPayload = Record<string, unknown> & { consumed?: number };

/** The provider's Adapter interface (oidc-provider's example/my_adapter.js), as this store fills it. */
export interface ArtifactAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<ArtifactPayload | undefined>;
  findByUid(uid: string): Promise<ArtifactPayload | undefined>;
  findByUserCode(userCode: string): Promise<ArtifactPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export interface ArtifactStoreOptions {
  /** What a second consume of one code or token throws: the provider's invalid_grant, so it answers 400. */
  alreadyConsumed: () => Error;
}

const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
const live = () => or(isNull(oidcArtifacts.expiresAt), gt(oidcArtifacts.expiresAt, sql`now()`));

/**
 * The adapter factory for the provider of one realm: `kind` is the provider's model name. Clients
 * are read from the registered apps (oidc_clients) at every lookup, never stored here, so a
 * change by `npm run client` is seen by every gateway at once.
 */
export function artifactStore(db: Database, realmId: string, opts: ArtifactStoreOptions) {
  return (kind: string): ArtifactAdapter => {
    const row = (id: string) =>
      and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.kind, kind), eq(oidcArtifacts.id, id));
    const findWhere = async (where: ReturnType<typeof and>) => {
      const [found] = await db
        .select({ payload: oidcArtifacts.payload, consumedAt: oidcArtifacts.consumedAt })
        .from(oidcArtifacts)
        .where(and(where, live()))
        .limit(1);
      if (!found) return undefined;
      const payload: ArtifactPayload = { ...found.payload };
      if (found.consumedAt) payload.consumed = Math.floor(found.consumedAt.getTime() / 1000);
      return payload;
    };
    if (kind === 'Client')
      return {
        async find(id) {
          const client = await findClient(db, realmId, id);
          return client ? clientMetadata(client) : undefined;
        },
        // Registration is off: clients are never written, found by uid or consumed here.
        upsert: () => Promise.reject(new Error('clients are registered with npm run client')),
        findByUid: () => Promise.resolve(undefined),
        findByUserCode: () => Promise.resolve(undefined),
        consume: () => Promise.resolve(),
        destroy: () => Promise.reject(new Error('clients are removed with npm run client')),
        revokeByGrantId: () => Promise.resolve(),
      };
    return {
      async upsert(id, payload, expiresIn) {
        const columns = {
          payload,
          grantId: text(payload.grantId),
          uid: text(payload.uid),
          userCode: text(payload.userCode),
          accountId: text(payload.accountId),
          clientId: text(payload.clientId),
          expiresAt: typeof expiresIn === 'number' ? fromNow(expiresIn * 1000) : null,
        };
        await db
          .insert(oidcArtifacts)
          .values({ realmId, kind, id, ...columns })
          .onConflictDoUpdate({ target: [oidcArtifacts.realmId, oidcArtifacts.kind, oidcArtifacts.id], set: columns });
      },
      find: (id) => findWhere(row(id)),
      findByUid: (uid) =>
        findWhere(and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.kind, kind), eq(oidcArtifacts.uid, uid))),
      findByUserCode: (userCode) =>
        findWhere(
          and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.kind, kind), eq(oidcArtifacts.userCode, userCode)),
        ),
      async consume(id) {
        const won = await db
          .update(oidcArtifacts)
          .set({ consumedAt: sql`now()` })
          .where(and(row(id), isNull(oidcArtifacts.consumedAt)))
          .returning({ id: oidcArtifacts.id });
        // Another request consumed it first: this one must not issue what the first did.
        if (won.length === 0) throw opts.alreadyConsumed();
      },
      async destroy(id) {
        await db.delete(oidcArtifacts).where(row(id));
      },
      async revokeByGrantId(grantId) {
        await db
          .delete(oidcArtifacts)
          .where(
            and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.kind, kind), eq(oidcArtifacts.grantId, grantId)),
          );
      },
    };
  };
}

/** The newest live consent (the provider's Grant) the account gave the app, remembered across its sessions. */
export async function latestGrantId(
  db: Database,
  realmId: string,
  accountId: string,
  clientId: string,
): Promise<string | null> {
  const [found] = await db
    .select({ id: oidcArtifacts.id })
    .from(oidcArtifacts)
    .where(
      and(
        eq(oidcArtifacts.realmId, realmId),
        eq(oidcArtifacts.accountId, accountId),
        eq(oidcArtifacts.kind, 'Grant'),
        eq(oidcArtifacts.clientId, clientId),
        live(),
      ),
    )
    .orderBy(desc(oidcArtifacts.createdAt))
    .limit(1);
  return found?.id ?? null;
}
