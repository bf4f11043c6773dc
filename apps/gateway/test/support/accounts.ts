import { createHash, randomBytes } from 'node:crypto';
import { sessions, users, type Database } from '@accounts/db';
import { eq, sql } from 'drizzle-orm';

/**
 * Writes a live session for a user straight into the database, the way the service stores
 * one (only the SHA-256 of the token), so a fuzz run can hold a session without a sign-in.
 */
export async function mintSession(db: Database, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const tokenHash = createHash('sha256').update(token).digest('hex');
  await db.insert(sessions).values({ userId, tokenHash, expiresAt: new Date(Date.now() + 3600_000) });
  return token;
}

export async function userByEmail(db: Database, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email.toLowerCase()));
  return user;
}

export async function sessionCount(db: Database, userId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(sessions).where(eq(sessions.userId, userId));
  return row!.n;
}
