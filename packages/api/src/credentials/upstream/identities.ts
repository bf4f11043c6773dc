import { and, asc, count, eq, sql } from 'drizzle-orm';
import {
  isUniqueViolation,
  passkeys,
  upstreamIdentities,
  upstreamProviders,
  users,
  type Database,
  type User,
} from '@accounts/db';
import { ProblemError } from '../../kernel/errors.js';
import { hasPassword } from '../../records/users.js';
import type { UpstreamProfile } from './kinds.js';

// An account's identities at upstream providers: the realm, the issuer and the subject (never the
// email), one per provider and account, enforced by the database's unique indexes.

/** The account an identity is linked to in the realm, or null. */
export async function linkedAccount(
  db: Database,
  realmId: string,
  profile: Pick<UpstreamProfile, 'issuer' | 'subject'>,
): Promise<User | null> {
  const [row] = await db
    .select({ user: users })
    .from(upstreamIdentities)
    .innerJoin(users, eq(users.id, upstreamIdentities.userId))
    .where(
      and(
        eq(upstreamIdentities.realmId, realmId),
        eq(upstreamIdentities.issuer, profile.issuer),
        eq(upstreamIdentities.subject, profile.subject),
      ),
    );
  return row?.user ?? null;
}

/**
 * Links an identity to an account (in the caller's transaction). 409 `connection_taken` when the
 * identity is another account's, or the account already has one at this provider.
 */
export async function linkIdentity(
  tx: Database,
  realmId: string,
  userId: string,
  providerId: string,
  profile: UpstreamProfile,
): Promise<void> {
  await tx
    .insert(upstreamIdentities)
    .values({ realmId, userId, providerId, issuer: profile.issuer, subject: profile.subject, email: profile.email })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new ProblemError('connection_taken');
      throw err;
    });
}

/** A sign-in used the identity: when, and the address it gave this time. */
export async function touchIdentity(db: Database, realmId: string, profile: UpstreamProfile): Promise<void> {
  await db
    .update(upstreamIdentities)
    .set({ lastUsedAt: sql`now()`, email: profile.email })
    .where(
      and(
        eq(upstreamIdentities.realmId, realmId),
        eq(upstreamIdentities.issuer, profile.issuer),
        eq(upstreamIdentities.subject, profile.subject),
      ),
    );
}

export interface Connection {
  provider: string;
  providerName: string;
  email: string | null;
  connectedAt: Date;
  lastUsedAt: Date;
}

/** The account's connected accounts, oldest first. */
export async function connectionsOf(db: Database, userId: string): Promise<Connection[]> {
  return db
    .select({
      provider: upstreamProviders.slug,
      providerName: upstreamProviders.name,
      email: upstreamIdentities.email,
      connectedAt: upstreamIdentities.createdAt,
      lastUsedAt: upstreamIdentities.lastUsedAt,
    })
    .from(upstreamIdentities)
    .innerJoin(upstreamProviders, eq(upstreamProviders.id, upstreamIdentities.providerId))
    .where(eq(upstreamIdentities.userId, userId))
    .orderBy(asc(upstreamIdentities.createdAt));
}

/**
 * Removes the account's identity at a provider (in the caller's transaction, with the account's
 * row locked): 404 `not_found` when it has none there; 409 `connection_last_way_in` when it is
 * the only way left to sign in (no password, no passkey, no other connection).
 */
export async function unlinkIdentity(tx: Database, user: User, providerSlug: string): Promise<{ name: string }> {
  const [found] = await tx
    .select({ id: upstreamIdentities.id, name: upstreamProviders.name })
    .from(upstreamIdentities)
    .innerJoin(upstreamProviders, eq(upstreamProviders.id, upstreamIdentities.providerId))
    .where(and(eq(upstreamIdentities.userId, user.id), eq(upstreamProviders.slug, providerSlug)));
  if (!found) throw new ProblemError('not_found');
  if (!hasPassword(user)) {
    const [keys] = await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, user.id));
    const [links] = await tx
      .select({ n: count() })
      .from(upstreamIdentities)
      .where(eq(upstreamIdentities.userId, user.id));
    if ((keys?.n ?? 0) === 0 && (links?.n ?? 0) <= 1) throw new ProblemError('connection_last_way_in');
  }
  await tx.delete(upstreamIdentities).where(eq(upstreamIdentities.id, found.id));
  return { name: found.name };
}
