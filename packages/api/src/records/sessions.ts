import type { IssuedSession } from '../kernel/context.js';
import { and, eq, gt, inArray, isNull, ne, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { realms, sessions, users, type Database, type Session, type User } from '@accounts/db';
import type { AccountConfig } from '../kernel/config.js';
import { ago, fromNow, millis } from '../kernel/db-time.js';
import { keptUserAgent } from '../kernel/device.js';
import { sessionCacheOf } from './session-cache.js';
import { hashToken, isTokenShape, newToken } from './tokens.js';

/** The check of a presented session token's shape (the transports read a bearer header with it). */
export const isSessionTokenShape = isTokenShape;

// Every session time is the database's clock (see db-time.ts).

/**
 * The one rule of a live session: before its expiry, and used within the idle limit. The session
 * check, the account's list of sessions and the purge (which deletes the rest) all read it here.
 */
export const sessionIsLive = (idleMs: number | Placeholder): SQL =>
  and(gt(sessions.expiresAt, sql`now()`), gt(sessions.lastSeenAt, ago(idleMs)))!;

/** Where a session begins: shown to its owner on the security page. */
export interface SessionOrigin {
  userAgent?: string | null;
  clientIp?: string | null;
  /** The sign-in proved the password (default); false for a passkey sign-in. */
  passwordChecked?: boolean;
  /** The sign-in proved a second factor: its second step, or a passkey sign-in (default false). */
  factorChecked?: boolean;
  /** How it signed in, as RFC 8176 method references (`pwd`, `otp`, `hwk`, `swk`, `mfa`). */
  amr?: readonly string[];
}

/**
 * Sessions one account may hold at once; a new one past it ends the oldest (by when it began).
 * Generous for a person's browsers, phones and programs, small enough that a script signing in
 * in a loop cannot grow the table or the owner's device list without bound.
 */
export const MAX_SESSIONS_PER_ACCOUNT = 50;

export async function createSession(
  db: Database,
  userId: string,
  config: AccountConfig,
  origin: SessionOrigin = {},
): Promise<IssuedSession> {
  const token = newToken();
  const [row] = await db
    .insert(sessions)
    .values({
      userId,
      tokenHash: hashToken(token),
      expiresAt: fromNow(config.sessionTtlMs),
      userAgent: keptUserAgent(origin.userAgent),
      clientIp: origin.clientIp ?? null,
      passwordCheckedAt: origin.passwordChecked === false ? null : sql`now()`,
      factorCheckedAt: origin.factorChecked ? sql`now()` : null,
      amr: origin.amr ? [...origin.amr] : null,
    })
    .returning({ expiresAt: sessions.expiresAt });
  await db.execute(
    sql`delete from ${sessions} where ${sessions.id} in (select ${sessions.id} from ${sessions} where ${sessions.userId} = ${userId} order by ${sessions.createdAt} desc, ${sessions.id} desc offset ${MAX_SESSIONS_PER_ACCOUNT})`,
  );
  return { token, expiresAt: row!.expiresAt };
}

// Writing last_seen_at on every request would turn reads into writes; a minute's precision is plenty.
export const TOUCH_AFTER_MS = 60_000;

/**
 * The session check runs on nearly every request, so its statement is built once per database
 * handle and prepared on the server; built each time, drizzle spends more CPU assembling the
 * SQL than the database spends answering it (see docs/benchmarks.md).
 */
function sessionLookup(db: Database) {
  return db
    .select({
      session: sessions,
      user: users,
      stale: sql<boolean>`${sessions.lastSeenAt} < ${ago(TOUCH_AFTER_MS)}`,
      // How long the answer holds: until the session expires, idles out, or is due a touch.
      liveMs: sql<number>`1000 * extract(epoch from least(${sessions.expiresAt}, ${sessions.lastSeenAt} + ${millis(sql.placeholder('idleMs'))}, ${sessions.lastSeenAt} + ${millis(TOUCH_AFTER_MS)}) - now())::float8`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(realms, eq(realms.id, users.realmId))
    .where(
      and(
        eq(sessions.tokenHash, sql.placeholder('tokenHash')),
        eq(users.realmId, sql.placeholder('realmId')),
        // A disabled account's sessions are refused at once, whatever is left of them.
        isNull(users.disabledAt),
        // In a realm that requires a confirmed address, so are an unconfirmed account's.
        sql`(not ${realms.requireVerifiedEmail} or ${users.emailVerifiedAt} is not null)`,
        sessionIsLive(sql.placeholder('idleMs')),
      ),
    )
    .limit(1)
    .prepare('find_session');
}
const sessionLookups = new WeakMap<Database, ReturnType<typeof sessionLookup>>();

/** The live session of a token, with its user, if the user belongs to the realm; use keeps it from idling out. */
export async function findSession(
  db: Database,
  token: string,
  realmId: string,
  config: AccountConfig,
): Promise<{ session: Session; user: User } | null> {
  if (!isSessionTokenShape(token)) return null;
  const tokenHash = hashToken(token);
  const cache = sessionCacheOf(db);
  const key = `${tokenHash} ${realmId}`;
  const cached = cache?.get(key);
  if (cached) return cached;
  const generation = cache?.generation() ?? 0;
  let lookup = sessionLookups.get(db);
  if (!lookup) sessionLookups.set(db, (lookup = sessionLookup(db)));
  const [row] = await lookup.execute({ tokenHash, realmId, idleMs: config.sessionIdleMs });
  if (!row) return null;
  const found = { session: row.session, user: row.user };
  if (row.stale)
    await db
      .update(sessions)
      .set({ lastSeenAt: sql`now()` })
      .where(eq(sessions.id, row.session.id));
  else cache?.put(key, found, Number(row.liveMs), generation);
  return found;
}

/** Gives a session a new token in place: same expiry, the old token stops working. */
export async function rotateSession(db: Database, session: Session): Promise<IssuedSession> {
  const token = newToken();
  await db
    .update(sessions)
    .set({ tokenHash: hashToken(token), lastSeenAt: sql`now()`, passwordCheckedAt: sql`now()` })
    .where(eq(sessions.id, session.id));
  return { token, expiresAt: session.expiresAt };
}

/** Ends every session of the user, or all but the one kept (the caller's); returns how many ended. */
export async function endSessions(db: Database, userId: string, keepSessionId: string | null = null): Promise<number> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), keepSessionId ? ne(sessions.id, keepSessionId) : undefined))
    .returning({ id: sessions.id });
  return gone.length;
}

/**
 * Ends the session of a presented token (none: nothing to end) if its user belongs to the realm (a
 * session stays in its realm). Returns whose session it was.
 */
export async function deleteSessionByToken(
  db: Database,
  token: string | null,
  realmId: string,
): Promise<string | null> {
  if (!token) return null;
  const inRealm = db.select({ id: users.id }).from(users).where(eq(users.realmId, realmId));
  const [gone] = await db
    .delete(sessions)
    .where(and(eq(sessions.tokenHash, hashToken(token)), inArray(sessions.userId, inRealm)))
    .returning({ userId: sessions.userId });
  return gone?.userId ?? null;
}
