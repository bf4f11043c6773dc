import { and, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { upstreamFlows, type Database } from '@accounts/db';
import { fromNow } from '../../kernel/db-time.js';
import type { Vault } from '../../kernel/vault.js';
import { hashToken, isTokenShape, newToken } from '../../records/tokens.js';
import type { FlowSecrets } from './client.js';
import type { UpstreamProfile } from './kinds.js';

// A sign-in at an upstream provider under way, kept on the server (never in a cookie the browser
// could replay elsewhere): found by its state, bound to the browser that started it (the digest
// of its `upstream_flow` cookie) and to the realm, used once, ten minutes.

export const UPSTREAM_FLOW_TTL_MS = 10 * 60_000;

/** The browser's binding: the token its cookie holds, kept; a new one when it has none. */
export const browserTokenOf = (presented: string | null | undefined) =>
  presented && isTokenShape(presented) ? presented : newToken();

const sealedFor = (stateDigest: string) => `upstream-flow:${stateDigest}`;

export interface StartedFlow {
  realmId: string;
  providerId: string;
  browserToken: string;
  secrets: FlowSecrets;
  next: string | null;
  /** A connection asked for by a signed-in account. */
  userId: string | null;
}

export async function saveFlow(db: Database, vault: Vault, flow: StartedFlow): Promise<Date> {
  const stateDigest = hashToken(flow.secrets.state);
  const [row] = await db
    .insert(upstreamFlows)
    .values({
      realmId: flow.realmId,
      providerId: flow.providerId,
      stateDigest,
      browserDigest: hashToken(flow.browserToken),
      secrets: vault.seal(JSON.stringify(flow.secrets), sealedFor(stateDigest)),
      next: flow.next,
      userId: flow.userId,
      expiresAt: fromNow(UPSTREAM_FLOW_TTL_MS),
    })
    .returning({ expiresAt: upstreamFlows.expiresAt });
  return row!.expiresAt;
}

export interface TakenFlow {
  providerId: string;
  secrets: FlowSecrets;
  next: string | null;
  userId: string | null;
  /** A form_post's answer kept for this GET. */
  response: Record<string, string> | null;
}

/**
 * Takes the flow a callback's state names: used up whatever comes next (a second callback with
 * the same state finds nothing), and null unless it is this realm's, this browser's and live.
 */
export async function takeFlow(
  db: Database,
  vault: Vault,
  realmId: string,
  state: string,
  browserToken: string | null,
): Promise<TakenFlow | null> {
  const stateDigest = hashToken(state);
  const [row] = await db
    .delete(upstreamFlows)
    .where(and(eq(upstreamFlows.stateDigest, stateDigest), isNull(upstreamFlows.pending)))
    .returning({
      realmId: upstreamFlows.realmId,
      providerId: upstreamFlows.providerId,
      browserDigest: upstreamFlows.browserDigest,
      secrets: upstreamFlows.secrets,
      next: upstreamFlows.next,
      userId: upstreamFlows.userId,
      response: upstreamFlows.response,
      live: sql<boolean>`${upstreamFlows.expiresAt} > now()`,
    });
  if (!row || !row.live || row.realmId !== realmId) return null;
  if (!browserToken || hashToken(browserToken) !== row.browserDigest) return null;
  const open = (sealed: string) => vault.open(sealed, sealedFor(stateDigest));
  return {
    providerId: row.providerId,
    secrets: JSON.parse(open(row.secrets)) as FlowSecrets,
    next: row.next,
    userId: row.userId,
    response: row.response ? (JSON.parse(open(row.response)) as Record<string, string>) : null,
  };
}

/**
 * Keeps a form_post's answer (a cross-site POST, which carries no cookie that could bind it) on
 * its flow, once, for the redirected GET that the browser makes with its cookie.
 */
export async function keepResponse(
  db: Database,
  vault: Vault,
  realmId: string,
  state: string,
  response: Record<string, string>,
): Promise<boolean> {
  const stateDigest = hashToken(state);
  const kept = await db
    .update(upstreamFlows)
    .set({ response: vault.seal(JSON.stringify(response), sealedFor(stateDigest)) })
    .where(
      and(
        eq(upstreamFlows.stateDigest, stateDigest),
        eq(upstreamFlows.realmId, realmId),
        isNull(upstreamFlows.response),
        isNull(upstreamFlows.pending),
        gt(upstreamFlows.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: upstreamFlows.id });
  return kept.length === 1;
}

/** An identity waiting to be linked to the account that holds its address. */
export interface PendingLink {
  providerId: string;
  profile: UpstreamProfile;
  next: string | null;
}

const pendingFor = (browserDigest: string) => `upstream-link:${browserDigest}`;

/** Keeps an identity for the browser until the account's owner signs in (ten minutes); replaces an earlier one. */
export async function savePendingLink(
  db: Database,
  vault: Vault,
  realmId: string,
  browserToken: string,
  link: PendingLink,
) {
  const browserDigest = hashToken(browserToken);
  await db.transaction(async (tx) => {
    await tx
      .delete(upstreamFlows)
      .where(and(eq(upstreamFlows.browserDigest, browserDigest), isNotNull(upstreamFlows.pending)));
    await tx.insert(upstreamFlows).values({
      realmId,
      providerId: link.providerId,
      stateDigest: hashToken(newToken()),
      browserDigest,
      secrets: '',
      next: link.next,
      pending: vault.seal(JSON.stringify(link.profile), pendingFor(browserDigest)),
      expiresAt: fromNow(UPSTREAM_FLOW_TTL_MS),
    });
  });
}

/** The browser's live pending link in the realm, or null; `take` uses it up. */
export async function pendingLinkOf(
  db: Database,
  vault: Vault,
  realmId: string,
  browserToken: string | null,
  take = false,
): Promise<PendingLink | null> {
  if (!browserToken || !isTokenShape(browserToken)) return null;
  const browserDigest = hashToken(browserToken);
  const mine = and(
    eq(upstreamFlows.browserDigest, browserDigest),
    eq(upstreamFlows.realmId, realmId),
    isNotNull(upstreamFlows.pending),
    gt(upstreamFlows.expiresAt, sql`now()`),
  );
  const [row] = take
    ? await db.delete(upstreamFlows).where(mine).returning()
    : await db.select().from(upstreamFlows).where(mine).orderBy(desc(upstreamFlows.createdAt)).limit(1);
  if (!row?.pending) return null;
  return {
    providerId: row.providerId,
    next: row.next,
    profile: JSON.parse(vault.open(row.pending, pendingFor(browserDigest))) as UpstreamProfile,
  };
}
