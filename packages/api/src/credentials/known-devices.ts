import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { knownDevices, type Database } from '@accounts/db';
import { hashToken, isTokenShape, newToken, TOKEN_LENGTH } from '../records/tokens.js';
import { NO_USER } from '../records/users.js';

// A known-device credential is one token (tokens.ts) per account and browser, kept by the client
// (an HttpOnly cookie, or a header for programs) and stored only as its SHA-256. The client
// sends back all it holds, joined by ".", so one browser stays known to a few accounts.
/** Tokens one credential value may hold: enough for a shared computer, and a bounded cookie. */
export const MAX_DEVICE_TOKENS = 5;

/**
 * Known devices kept per account, the most recently used first: a new one past it forgets the
 * least recently used. Each is a client of its own to the lockout, and a program that never sends
 * its credential back gets a new one at every sign-in; this bounds both.
 */
export const KNOWN_DEVICES_PER_ACCOUNT = 20;

/** The well-formed tokens of a presented credential (anything else in it is ignored). */
export function parseDeviceCredential(value: string | null | undefined): string[] {
  if (!value) return [];
  const tokens = value
    .slice(0, (TOKEN_LENGTH + 1) * MAX_DEVICE_TOKENS)
    .split('.')
    .filter(isTokenShape);
  return [...new Set(tokens)].slice(0, MAX_DEVICE_TOKENS);
}

/** The digest of the presented token that is a known device of this account, if any. */
export async function knownDeviceOf(db: Database, userId: string | null, tokens: string[]): Promise<string | null> {
  if (tokens.length === 0) return null;
  const [row] = await db
    .select({ tokenHash: knownDevices.tokenHash })
    .from(knownDevices)
    // An unknown email looks its device up too (it finds nothing), so both paths run the query.
    .where(and(eq(knownDevices.userId, userId ?? NO_USER), inArray(knownDevices.tokenHash, tokens.map(hashToken))))
    .limit(1);
  return row?.tokenHash ?? null;
}

/**
 * After a successful sign-in or registration: keeps a token that is already known to this
 * account (and marks it used), or adds a new one in front of what the client holds, forgetting
 * the account's least recently used past KNOWN_DEVICES_PER_ACCOUNT. Returns the
 * credential value to hand back. A token the client brought but that is not this account's is
 * never adopted, so nobody can plant a token they know in someone else's browser.
 */
export async function rememberDevice(
  db: Database,
  userId: string,
  tokens: string[],
  known: string | null,
): Promise<string> {
  if (known) {
    await db
      .update(knownDevices)
      .set({ lastUsedAt: sql`now()` })
      .where(eq(knownDevices.tokenHash, known));
    return tokens.join('.');
  }
  const token = newToken();
  // One statement: the delete reads the table as it was before the insert, so it keeps the
  // account's most recently used devices but one, and the new one makes the count.
  await db.execute(
    sql`with added as (insert into known_devices (user_id, token_hash) values (${userId}, ${hashToken(token)})) delete from ${knownDevices} where ${knownDevices.id} in (select ${knownDevices.id} from ${knownDevices} where ${knownDevices.userId} = ${userId} order by ${knownDevices.lastUsedAt} desc, ${knownDevices.createdAt} desc offset ${KNOWN_DEVICES_PER_ACCOUNT - 1})`,
  );
  return [token, ...tokens].slice(0, MAX_DEVICE_TOKENS).join('.');
}

/**
 * Ends the account's known devices when its password changes hands: all of them (a reset), or all
 * but the caller's (`keep`, the digest knownDeviceOf found for a password change). A browser that
 * signed in with a stolen password then counts as its address again and is announced when it next
 * signs in. Returns how many ended.
 */
export async function endKnownDevices(db: Database, userId: string, keep: string | null = null): Promise<number> {
  const gone = await db
    .delete(knownDevices)
    .where(and(eq(knownDevices.userId, userId), keep ? ne(knownDevices.tokenHash, keep) : undefined))
    .returning({ id: knownDevices.id });
  return gone.length;
}
