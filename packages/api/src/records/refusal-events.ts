import { and, eq, sql } from 'drizzle-orm';
import { accountEvents, type Database } from '@accounts/db';
import { ago } from '../kernel/db-time.js';
import { addressKey, keptUserAgent } from '../kernel/device.js';
import type { EventSource } from './events.js';

// Refusals that leave an attributable record: rate limited, a cross-origin write refused, a
// mailed link's or a session's token that is not valid (the lockout records its own refusals,
// account-lockout.ts). Each is an account event with its realm, client address, the account
// where known and the request id. Bounded so that a flood of refusals cannot flood the table: at
// most REFUSALS_PER_WINDOW of one kind per client (address, IPv6 by /64) per window, counted in
// the database; once a client is at the bound this process stops asking until the window ends.

export type RefusalType = 'rate_limited' | 'cross_origin_refused' | 'token_invalid';

export const REFUSALS_PER_WINDOW = 10;
export const REFUSAL_WINDOW_MS = 10 * 60_000;
/** Clients remembered as at the bound, per process; past it the memory starts over (the database still counts). */
const REMEMBERED_MAX = 10_000;

export type RefusalRecorder = (src: EventSource, type: RefusalType, userId?: string | null) => Promise<void>;

export function createRefusalRecorder(db: Database): RefusalRecorder {
  const full = new Map<string, number>();
  return async (src, type, userId = null) => {
    const clientKey = addressKey(src.clientIp);
    const remembered = `${type} ${clientKey}`;
    if ((full.get(remembered) ?? 0) > Date.now()) return;
    const [seen] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(accountEvents)
      .where(
        and(
          eq(accountEvents.clientKey, clientKey),
          eq(accountEvents.type, type),
          sql`${accountEvents.createdAt} > ${ago(REFUSAL_WINDOW_MS)}`,
        ),
      );
    if ((seen?.n ?? 0) >= REFUSALS_PER_WINDOW) {
      if (full.size >= REMEMBERED_MAX) full.clear();
      full.set(remembered, Date.now() + REFUSAL_WINDOW_MS);
      return;
    }
    await db.insert(accountEvents).values({
      realmId: src.realmId,
      userId,
      type,
      clientKey,
      clientIp: src.clientIp,
      userAgent: keptUserAgent(src.userAgent),
      requestId: src.requestId ?? null,
    });
  };
}
