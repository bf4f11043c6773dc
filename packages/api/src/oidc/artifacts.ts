import { AsyncLocalStorage } from 'node:async_hooks';
import { and, desc, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import { oidcArtifacts, type Database } from '@accounts/db';
import { ago, fromNow } from '../kernel/db-time.js';
import { OIDC_LIFETIMES } from '../kernel/oidc-lifetimes.js';
import type { Vault } from '../kernel/vault.js';
import { hashToken, newToken } from '../records/tokens.js';
import { clientMetadata, findClient } from './clients.js';

// The OpenID Connect provider's storage (its Adapter interface, one adapter per model) over one
// table, each row bound to its realm: an id of one realm is never found in another. Times are the
// database's. A bearer id (a code, a token, a session or interaction cookie: every model but the
// Grant, whose id is no credential) is kept only as its digest, and the payload without it, so the
// table hands nobody a live token. `consume` is one conditional UPDATE, so of two requests using
// one code or refresh token at once (on one gateway or several) exactly one wins.
//
// Refresh rotation with a grace period: the request that consumes a refresh token names its
// successor's id in the same UPDATE (sealed in the row); a request presenting the rotated token
// again within OIDC_LIFETIMES.refreshGrace, concurrently or after a lost response, is given that
// same successor instead of a second one, so exactly one successor is ever live. Past the grace
// period the provider sees the token as consumed and revokes the whole grant (reuse detection).
// The successor id reaches the provider's RefreshToken through the request's rotation scope
// (`inRotationScope`, `takeSuccessorId`), which the gateway opens around the token endpoint.

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
  /** Seals a rotated refresh token's successor in its row. */
  vault: Vault;
}

/** What one token request knows of a refresh token's rotation (see the header). */
interface RotationScope {
  /** The id the successor the provider is about to make must have. */
  successor?: string;
  /** The rotated token found within its grace period: its consume is already done. */
  graced?: string;
}

const rotations = new AsyncLocalStorage<RotationScope>();

/** Runs one token request with its rotation scope. */
export const inRotationScope = <T>(fn: () => Promise<T>): Promise<T> => rotations.run({}, fn);

/** The id a refresh token made now must have (a rotation's successor), once; undefined: a new random one. */
export function takeSuccessorId(): string | undefined {
  const scope = rotations.getStore();
  const id = scope?.successor;
  if (scope) scope.successor = undefined;
  return id;
}

/** Models whose id is no credential, kept as it is. */
const PLAIN_IDS = new Set(['Grant']);

const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
const live = () => or(isNull(oidcArtifacts.expiresAt), gt(oidcArtifacts.expiresAt, sql`now()`));
const sealedFor = (realmId: string, id: string) => `oidc-refresh:${realmId}:${id}`;

/**
 * The adapter factory for the provider of one realm: `kind` is the provider's model name. Clients
 * are read from the registered apps (oidc_clients) at every lookup, never stored here, so a
 * change by `npm run client` is seen by every gateway at once.
 */
export function artifactStore(db: Database, realmId: string, opts: ArtifactStoreOptions) {
  return (kind: string): ArtifactAdapter => {
    const key = PLAIN_IDS.has(kind) ? (id: string) => id : hashToken;
    const inModel = and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.kind, kind));
    const row = (id: string) => and(inModel, eq(oidcArtifacts.id, key(id)));
    const read = async (where: ReturnType<typeof and>) => {
      const [found] = await db
        .select({
          payload: oidcArtifacts.payload,
          consumedAt: oidcArtifacts.consumedAt,
          successor: oidcArtifacts.successor,
          inGrace: sql<boolean>`coalesce(${oidcArtifacts.consumedAt} > ${ago(OIDC_LIFETIMES.refreshGrace * 1000)}, false)`,
        })
        .from(oidcArtifacts)
        .where(and(where, live()))
        .limit(1);
      return found;
    };
    const asPayload = (found: { payload: Record<string, unknown>; consumedAt: Date | null }, id?: string) => {
      const payload: ArtifactPayload = { ...found.payload };
      if (id !== undefined) payload.jti = id;
      if (found.consumedAt) payload.consumed = Math.floor(found.consumedAt.getTime() / 1000);
      return payload;
    };
    /** The successor a rotated refresh token still in its grace period had; null past it (or none). */
    const graceSuccessor = (id: string, found: Awaited<ReturnType<typeof read>>) => {
      if (kind !== 'RefreshToken' || !found?.consumedAt || !found.inGrace || !found.successor) return null;
      try {
        return opts.vault.open(found.successor, sealedFor(realmId, id));
      } catch {
        // Sealed under a secret key no longer known: no grace, as for any other consumed token.
        return null;
      }
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
        const kept = { ...payload };
        delete kept.jti;
        // A code or token that ends with its provider session is bound to the session here that
        // session is bound to (bindProviderSession), so it goes when that one ends.
        const sessionUid = payload.expiresWithSession === true ? text(payload.sessionUid) : null;
        const columns = {
          payload: PLAIN_IDS.has(kind) ? payload : kept,
          grantId: text(payload.grantId),
          uid: text(payload.uid),
          userCode: text(payload.userCode),
          accountId: text(payload.accountId),
          clientId: text(payload.clientId),
          expiresAt: typeof expiresIn === 'number' ? fromNow(expiresIn * 1000) : null,
          sessionId: sessionUid
            ? sql`(select s.session_id from ${oidcArtifacts} s where s.realm_id = ${realmId} and s.kind = 'Session' and s.uid = ${sessionUid} and s.session_id is not null limit 1)`
            : null,
        };
        await db
          .insert(oidcArtifacts)
          .values({ realmId, kind, id: key(id), ...columns })
          .onConflictDoUpdate({ target: [oidcArtifacts.realmId, oidcArtifacts.kind, oidcArtifacts.id], set: columns });
      },
      async find(id) {
        const found = await read(row(id));
        if (!found) return undefined;
        const scope = rotations.getStore();
        const successor = scope ? graceSuccessor(id, found) : null;
        if (scope && successor) {
          // Within the grace period: the provider goes on as with a live token, and makes the same successor.
          scope.graced = id;
          scope.successor = successor;
          return asPayload({ payload: found.payload, consumedAt: null }, id);
        }
        return asPayload(found, id);
      },
      async findByUid(uid) {
        const found = await read(and(inModel, eq(oidcArtifacts.uid, uid)));
        return found && asPayload(found);
      },
      async findByUserCode(userCode) {
        const found = await read(and(inModel, eq(oidcArtifacts.userCode, userCode)));
        return found && asPayload(found);
      },
      async consume(id) {
        const scope = rotations.getStore();
        if (scope?.graced === id) return;
        const successor = scope && kind === 'RefreshToken' ? newToken() : null;
        const won = await db
          .update(oidcArtifacts)
          .set({
            consumedAt: sql`now()`,
            successor: successor && opts.vault.seal(successor, sealedFor(realmId, id)),
          })
          .where(and(row(id), isNull(oidcArtifacts.consumedAt)))
          .returning({ id: oidcArtifacts.id });
        if (won.length > 0) {
          if (scope && successor) scope.successor = successor;
          return;
        }
        // Another request consumed it first: within the grace period this one gets the same
        // successor; otherwise it must not issue what the first did.
        const same = scope ? graceSuccessor(id, await read(row(id))) : null;
        if (!scope || !same) throw opts.alreadyConsumed();
        scope.successor = same;
      },
      async destroy(id) {
        await db.delete(oidcArtifacts).where(row(id));
      },
      async revokeByGrantId(grantId) {
        await db.delete(oidcArtifacts).where(and(inModel, eq(oidcArtifacts.grantId, grantId)));
      },
    };
  };
}

/**
 * Binds a provider session (by its uid) of an account to the session here it was made from, with
 * every code and token already made that ends with it: when that session ends, they go too.
 */
export async function bindProviderSession(
  db: Database,
  realmId: string,
  uid: string,
  subject: string,
  sessionId: string,
): Promise<void> {
  await db
    .update(oidcArtifacts)
    .set({ sessionId })
    .where(
      and(
        eq(oidcArtifacts.realmId, realmId),
        or(
          and(eq(oidcArtifacts.kind, 'Session'), eq(oidcArtifacts.uid, uid), eq(oidcArtifacts.accountId, subject)),
          and(
            ne(oidcArtifacts.kind, 'Session'),
            eq(oidcArtifacts.accountId, subject),
            sql`${oidcArtifacts.payload}->>'sessionUid' = ${uid}`,
            sql`${oidcArtifacts.payload}->>'expiresWithSession' = 'true'`,
          ),
        ),
        or(isNull(oidcArtifacts.sessionId), ne(oidcArtifacts.sessionId, sessionId)),
      ),
    );
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
