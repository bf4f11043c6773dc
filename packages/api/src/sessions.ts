import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import { sessions, users, type Database, type Session, type User } from '@accounts/db';
import type { AccountConfig } from './config.js';

/** 256 random bits, URL-safe; only its SHA-256 is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export async function createSession(db: Database, userId: string, config: AccountConfig): Promise<IssuedSession> {
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + config.sessionTtlMs);
  await db.insert(sessions).values({ userId, tokenHash: hashToken(token), expiresAt });
  return { token, expiresAt };
}

// Writing last_seen_at on every request would turn reads into writes; a minute's precision is plenty.
const TOUCH_AFTER_MS = 60_000;

/** The live session of a token, with its user, if the user belongs to the realm. */
export async function findSession(
  db: Database,
  token: string,
  realmId: string,
  config: AccountConfig,
): Promise<{ session: Session; user: User } | null> {
  if (token.length < 16 || token.length > 128) return null;
  const now = Date.now();
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, hashToken(token)),
        eq(users.realmId, realmId),
        gt(sessions.expiresAt, new Date(now)),
        gt(sessions.lastSeenAt, new Date(now - config.sessionIdleMs)),
      ),
    )
    .limit(1);
  if (!row) return null;
  if (now - row.session.lastSeenAt.getTime() > TOUCH_AFTER_MS) {
    await db.update(sessions).set({ lastSeenAt: new Date(now) }).where(eq(sessions.id, row.session.id));
  }
  return row;
}

/** Gives a session a new token in place: same expiry, the old token stops working. */
export async function rotateSession(db: Database, session: Session): Promise<IssuedSession> {
  const token = newSessionToken();
  await db
    .update(sessions)
    .set({ tokenHash: hashToken(token), lastSeenAt: sql`now()` })
    .where(eq(sessions.id, session.id));
  return { token, expiresAt: session.expiresAt };
}

/** Ends every session of the user but the one kept; returns how many ended. */
export async function revokeOtherSessions(db: Database, userId: string, keepSessionId: string): Promise<number> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)))
    .returning({ id: sessions.id });
  return gone.length;
}

/** Ends the session of a token if its user belongs to the realm (a session stays in its realm). */
export async function deleteSessionByToken(db: Database, token: string, realmId: string): Promise<string | null> {
  const inRealm = db.select({ id: users.id }).from(users).where(eq(users.realmId, realmId));
  const [gone] = await db
    .delete(sessions)
    .where(and(eq(sessions.tokenHash, hashToken(token)), inArray(sessions.userId, inRealm)))
    .returning({ userId: sessions.userId });
  return gone?.userId ?? null;
}
