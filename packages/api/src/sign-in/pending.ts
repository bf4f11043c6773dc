import { and, eq, gt, gte, isNull, sql } from 'drizzle-orm';
import { pendingSignIns, users, type Database, type User } from '@accounts/db';
import { fromNow } from '../kernel/db-time.js';
import { hashToken, isTokenShape, newToken } from '../records/tokens.js';

// A sign-in whose password was right, waiting for its second step. The client holds the token
// (an HttpOnly cookie, or the body for a program); the database holds its digest.

/** How long the second step may take. */
export const PENDING_SIGN_IN_TTL_MS = 5 * 60_000;
/** Wrong codes after which the pending sign-in is void and the password must be given again. */
export const MAX_SECOND_STEP_FAILURES = 5;

export interface PendingSignIn {
  token: string;
  expiresAt: Date;
}

/** Starts a pending sign-in for the account in the caller's transaction. */
export async function beginPendingSignIn(
  tx: Database,
  realmId: string,
  userId: string,
  firstAmr: readonly string[],
): Promise<PendingSignIn> {
  const token = newToken();
  const [row] = await tx
    .insert(pendingSignIns)
    .values({
      realmId,
      userId,
      tokenHash: hashToken(token),
      firstAmr: [...firstAmr],
      expiresAt: fromNow(PENDING_SIGN_IN_TTL_MS),
    })
    .returning({ expiresAt: pendingSignIns.expiresAt });
  return { token, expiresAt: row!.expiresAt };
}

/**
 * The live pending sign-in a token names in this realm, with its account: not expired, begun
 * after the password last changed, of an account that is enabled and still has the second step.
 */
export async function findPendingSignIn(
  db: Database,
  token: string,
  realmId: string,
): Promise<{ id: string; user: User; firstAmr: string[] } | null> {
  if (!isTokenShape(token)) return null;
  const [row] = await db
    .select({ id: pendingSignIns.id, user: users, firstAmr: pendingSignIns.firstAmr })
    .from(pendingSignIns)
    .innerJoin(users, eq(users.id, pendingSignIns.userId))
    .where(
      and(
        eq(pendingSignIns.tokenHash, hashToken(token)),
        eq(pendingSignIns.realmId, realmId),
        gt(pendingSignIns.expiresAt, sql`now()`),
        gte(pendingSignIns.createdAt, users.passwordChangedAt),
        isNull(users.disabledAt),
        eq(users.twoStep, true),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** Ends a pending sign-in (used, in the caller's transaction); false when it had already ended. */
export async function endPendingSignIn(tx: Database, id: string): Promise<boolean> {
  const gone = await tx.delete(pendingSignIns).where(eq(pendingSignIns.id, id)).returning({ id: pendingSignIns.id });
  return gone.length === 1;
}

/**
 * Counts a wrong code; at the limit the pending sign-in ends. Returns the wrong codes it has left
 * (0: it just ended), or null when it had already ended (used or voided meanwhile).
 */
export async function countWrongCode(db: Database, id: string): Promise<number | null> {
  const [row] = await db
    .update(pendingSignIns)
    .set({ failures: sql`${pendingSignIns.failures} + 1` })
    .where(eq(pendingSignIns.id, id))
    .returning({ failures: pendingSignIns.failures });
  if (!row) return null;
  const left = Math.max(0, MAX_SECOND_STEP_FAILURES - row.failures);
  if (left === 0) await endPendingSignIn(db, id);
  return left;
}
