import { and, eq, sql } from 'drizzle-orm';
import { sessions, users, type Database, type Realm, type User } from '@accounts/db';
import { credentialsChangeTime, holdForCredentialsChange } from './tokens.js';
import { normalizeEmail, type Locale } from '@accounts/validators';

import type { z } from 'zod';
import type { publicUserSchema } from '../kernel/outputs.js';

/**
 * Never a user's id: work done for an email with no account (a device lookup, a token
 * invalidation) runs against it, so both paths run the same queries.
 */
export const NO_USER = '00000000-0000-0000-0000-000000000000';

/**
 * What `password_hash` holds for an account that has no password (made by an upstream sign-in):
 * unique per account, so "the hash is unchanged" still tells one credentials change from the
 * next, and no password ever verifies against it.
 */
const NO_PASSWORD = 'none:';
export const noPassword = () => `${NO_PASSWORD}${crypto.randomUUID()}`;
export const hasPassword = (user: Pick<User, 'passwordHash'>) => !user.passwordHash.startsWith(NO_PASSWORD);

/** What leaves the service about a user: never the hash. */
export type PublicUser = z.infer<typeof publicUserSchema>;

export function publicUser(user: User, realm: Realm): PublicUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    realm: realm.slug,
    emailVerified: user.emailVerifiedAt !== null,
  };
}

export async function findUserByEmail(db: Database, realmId: string, email: string): Promise<User | null> {
  const [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.realmId, realmId), sql`lower(btrim(${users.email})) = ${normalizeEmail(email)}`))
    .limit(1);
  return user ?? null;
}

/**
 * The one write of a new password hash (a change, a reset, an upgrade at sign-in); the change
 * time it stamps ends older reset links. With `expected` it swaps the hash only if it is still
 * the one the caller verified (compare-and-set), so of two concurrent changes from the same old
 * password exactly one wins. `addressProven` also confirms the address (a link mailed to it was
 * followed). `rehash`: the same password under a new cost, so its change time (which voids reset
 * links and sign-ins waiting for a second step) stays. Returns the updated account, or null when
 * the hash was no longer the expected one.
 */
export async function setPasswordHash(
  db: Database,
  userId: string,
  next: string,
  opts: { expected?: string; addressProven?: boolean; rehash?: boolean } = {},
): Promise<User | null> {
  const proven = opts.addressProven ? { emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` } : {};
  if (!opts.rehash) await holdForCredentialsChange(db, userId);
  const [row] = await db
    .update(users)
    .set({
      passwordHash: next,
      // A new password ends every mailed link granted under the old one (tokens.ts).
      ...(opts.rehash ? {} : { passwordChangedAt: sql`now()`, credentialsChangedAt: credentialsChangeTime() }),
      ...proven,
    })
    .where(and(eq(users.id, userId), opts.expected === undefined ? undefined : eq(users.passwordHash, opts.expected)))
    .returning();
  return row ?? null;
}

/**
 * Locks the user's row for the rest of the transaction if the hash is still the verified one,
 * and says whether the account now has two-step sign-in. A sign-in holding it cannot interleave
 * with a password change or a change to the second step: one waits for the other. With
 * `sessionId` (a signed-in action), that session must still exist once the row is held: a change
 * that ended it (turning two-step sign-in on, an operator's revoke) and committed first wins, so
 * an ended session never issues a link or changes the account afterwards. Null otherwise.
 */
export async function lockIfHashUnchanged(
  db: Database,
  userId: string,
  expected: string,
  sessionId?: string,
): Promise<{ twoStep: boolean } | null> {
  const [row] = await db
    .select({ twoStep: users.twoStep })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.passwordHash, expected)))
    .for('share');
  if (!row || sessionId === undefined) return row ?? null;
  const [session] = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId));
  return session ? row : null;
}

/**
 * Keeps the language the owner last used (their mails are written in it). Writes only on a change:
 * every update of a user row drops that account's remembered session checks on every instance.
 */
export async function rememberLocale(db: Database, user: User, locale: Locale): Promise<void> {
  if (user.locale === locale) return;
  await db.update(users).set({ locale }).where(eq(users.id, user.id));
}
