import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { accountTokens, users, type Database } from '@accounts/db';
import { fromNow } from '../kernel/db-time.js';

// Every secret the service hands out (a session, a known device, a mailed link) is one token:
// 256 random bits as 43 base64url characters, of which only the SHA-256 is stored.

/** A new token. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The one shape of a token as issued: anything else presented is no token, without a query. */
export const TOKEN_LENGTH = 43;
const TOKEN_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${TOKEN_LENGTH}}$`);
export const isTokenShape = (token: string) => TOKEN_SHAPE.test(token);

/** What is stored of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Single-use tokens sent by mail. A token is bound to a realm, an account and a purpose, and stops working when it
// is used, when it expires, when a newer one of the same purpose is issued, and when the account's
// credentials change (it must be younger than users.credentials_changed_at: endMailedLinks).

export type TokenPurpose = 'reset_password' | 'verify_email' | 'change_email';

/** What a working token acts on: its account, and for a change of address the new address. */
export interface LiveToken {
  userId: string;
  newEmail: string | null;
}

/** Issues a new token (inside the caller's transaction); older unused ones of the purpose stop working. */
export async function issueToken(
  tx: Database,
  opts: { realmId: string; userId: string; purpose: TokenPurpose; ttlMs: number; newEmail?: string },
): Promise<string> {
  await invalidateTokens(tx, opts.userId, opts.purpose);
  const token = newToken();
  await tx.insert(accountTokens).values({
    realmId: opts.realmId,
    userId: opts.userId,
    purpose: opts.purpose,
    tokenHash: hashToken(token),
    createdAt: credentialsChangeTime(),
    expiresAt: fromNow(opts.ttlMs),
    newEmail: opts.newEmail ?? null,
  });
  return token;
}

/**
 * Ends every outstanding mailed link of the account, of every purpose (and of any purpose added
 * later), in the caller's transaction: a link granted before now never works again. The one home
 * of "a security change ends the links"; setPasswordHash and refreshTwoStep stamp the same column.
 */
export async function endMailedLinks(tx: Database, userId: string): Promise<void> {
  await holdForCredentialsChange(tx, userId);
  await tx.update(users).set({ credentialsChangedAt: credentialsChangeTime() }).where(eq(users.id, userId));
}

/**
 * The time a credentials change is stamped with, and a link issued with: the clock when the
 * statement runs, not the transaction's start (now()). A change holds the account's row first
 * (holdForCredentialsChange), so a link-issuing transaction that holds it (lockIfHashUnchanged)
 * either inserts its link before the change can stamp (the link is older, and dies), or waits
 * for the change to commit and then sees it, and the sessions it ended, before it issues anything.
 */
export const credentialsChangeTime = () => sql`clock_timestamp()`;

/**
 * Holds the account's row before a credentials change is stamped: an UPDATE computes its new
 * values before it waits for a row lock, so a stamp taken in it could predate a link issued
 * while it waited.
 */
export async function holdForCredentialsChange(tx: Database, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
}

/** Marks every unused token of the purpose as used. */
export async function invalidateTokens(tx: Database, userId: string, purpose: TokenPurpose): Promise<void> {
  await tx
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(accountTokens.userId, userId), eq(accountTokens.purpose, purpose), isNull(accountTokens.usedAt)));
}

/** The conditions under which a presented token still works. */
function live(token: string, realmId: string, purpose: TokenPurpose) {
  return and(eq(accountTokens.tokenHash, hashToken(token)), eq(accountTokens.realmId, realmId), outstanding(purpose));
}

/** A link of the purpose that would still work: unused, unexpired, younger than the account's credentials. */
function outstanding(purpose: TokenPurpose) {
  return and(
    eq(accountTokens.purpose, purpose),
    isNull(accountTokens.usedAt),
    gt(accountTokens.expiresAt, sql`now()`),
    // A link dies with the credentials it was granted under: a password changed or reset, a second
    // factor turned on or off, an operator's disable, revoke-sessions or second-factor reset.
    sql`${accountTokens.createdAt} >= (select ${users.credentialsChangedAt} from ${users} where ${users.id} = ${accountTokens.userId})`,
  );
}

/** The account's newest link of the purpose that would still work (a change of address shows it as pending). */
export async function newestOutstandingLink(
  db: Database,
  userId: string,
  purpose: TokenPurpose,
): Promise<{ newEmail: string | null; expiresAt: Date } | null> {
  const [row] = await db
    .select({ newEmail: accountTokens.newEmail, expiresAt: accountTokens.expiresAt })
    .from(accountTokens)
    .where(and(eq(accountTokens.userId, userId), outstanding(purpose)))
    .orderBy(desc(accountTokens.createdAt))
    .limit(1);
  return row ?? null;
}

/** What a token would act on, without using it up (null for any token that does not work). */
export async function peekTokenRow(
  db: Database,
  token: string,
  realmId: string,
  purpose: TokenPurpose,
): Promise<LiveToken | null> {
  if (!isTokenShape(token)) return null;
  const [row] = await db
    .select({ userId: accountTokens.userId, newEmail: accountTokens.newEmail })
    .from(accountTokens)
    .where(live(token, realmId, purpose))
    .limit(1);
  return row ?? null;
}

/** The account a token would act on, without using it up (null for any token that does not work). */
export const peekToken = async (db: Database, token: string, realmId: string, purpose: TokenPurpose) =>
  (await peekTokenRow(db, token, realmId, purpose))?.userId ?? null;

/** Where a presented mailed link stands: it would work, or why it would not. */
export type LinkState =
  { state: 'usable'; userId: string } | { state: 'used' | 'expired'; userId: string } | { state: 'unknown' };

/**
 * Where a mailed link stands, read only (nothing is used up): the same digest lookup as `live`,
 * told apart. `used`: used, or replaced by a newer link of the purpose (issueToken marks the older
 * used). `expired`: past its time, or older than the account's credentials (endMailedLinks). A
 * token of another shape, realm or purpose is `unknown`, whatever it would act on.
 */
export async function linkState(
  db: Database,
  token: string,
  realmId: string,
  purpose: TokenPurpose,
): Promise<LinkState> {
  if (!isTokenShape(token) || token.length > TOKEN_LENGTH) return { state: 'unknown' };
  const [row] = await db
    .select({
      userId: accountTokens.userId,
      // The one rule of a working link (outstanding), asked of this row rather than filtering by it.
      usable: sql<boolean>`coalesce(${outstanding(purpose)}, false)`,
      used: sql<boolean>`${accountTokens.usedAt} is not null`,
    })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.tokenHash, hashToken(token)),
        eq(accountTokens.realmId, realmId),
        eq(accountTokens.purpose, purpose),
      ),
    )
    .limit(1);
  if (!row) return { state: 'unknown' };
  if (row.usable) return { state: 'usable', userId: row.userId };
  return { state: row.used ? 'used' : 'expired', userId: row.userId };
}

/**
 * Uses a token up, in one statement: of two concurrent uses exactly one gets the account.
 * Returns the account's id, or null for a token that does not work (whatever the reason).
 */
export async function consumeTokenRow(
  tx: Database,
  token: string,
  realmId: string,
  purpose: TokenPurpose,
): Promise<LiveToken | null> {
  if (!isTokenShape(token)) return null;
  const [row] = await tx
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(live(token, realmId, purpose))
    .returning({ userId: accountTokens.userId, newEmail: accountTokens.newEmail });
  return row ?? null;
}

/** Uses a token up (see consumeTokenRow); the account's id, or null. */
export const consumeToken = async (tx: Database, token: string, realmId: string, purpose: TokenPurpose) =>
  (await consumeTokenRow(tx, token, realmId, purpose))?.userId ?? null;

/**
 * The work a token issue costs, done for an email with no account: a random token, its digest,
 * and a lookup by that digest, so the answer for an unknown email takes as long.
 */
export async function dummyTokenWork(db: Database): Promise<void> {
  await db
    .select({ id: accountTokens.id })
    .from(accountTokens)
    .where(eq(accountTokens.tokenHash, hashToken(newToken())))
    .limit(1);
}
