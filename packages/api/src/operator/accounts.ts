import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import { sessions, users, type Database, type Realm } from '@accounts/db';
import { recordEvent, type EventSource } from '../records/events.js';
import { queueAccountDisabled, queueTwoStepReset, type OperatorMail } from '../mail/notices.js';
import { findRealm } from '../records/realms.js';
import { endSessions } from '../records/sessions.js';
import { endMailedLinks } from '../records/tokens.js';
import { removeSecondStep } from '../credentials/factors.js';
import { findUserByEmail } from '../records/users.js';

// What an operator does to accounts from the command line: list them, disable and enable one,
// end all its sessions, reset its two-step sign-in. Each action is an account event (from no address: the operator's).
// Disabling and resetting two-step sign-in also tell the owner, by a notice to a confirmed address
// in the owner's language: someone who talked an operator into either must not go unnoticed.

export type { OperatorMail };

export class AccountCommandError extends Error {}

/** The source of an operator's events: the realm, from no address. */
const operator = (realm: Realm): EventSource => ({ realmId: realm.id, clientIp: null });

async function realmOf(db: Database, slug: string): Promise<Realm> {
  const realm = await findRealm(db, slug);
  if (!realm) throw new AccountCommandError(`There is no realm "${slug}".`);
  return realm;
}

async function accountOf(db: Database, slug: string, email: string) {
  const realm = await realmOf(db, slug);
  const user = await findUserByEmail(db, realm.id, email);
  if (!user) throw new AccountCommandError(`There is no account ${email} in realm "${slug}".`);
  return { realm, user };
}

export interface AccountListing {
  email: string;
  name: string;
  createdAt: Date;
  disabledAt: Date | null;
  sessions: number;
}

export async function listAccounts(db: Database, realmSlug: string): Promise<AccountListing[]> {
  const realm = await realmOf(db, realmSlug);
  return db
    .select({
      email: users.email,
      name: users.name,
      createdAt: users.createdAt,
      disabledAt: users.disabledAt,
      sessions: count(sessions.id),
    })
    .from(users)
    .leftJoin(sessions, eq(sessions.userId, users.id))
    .where(eq(users.realmId, realm.id))
    .groupBy(users.id)
    .orderBy(users.createdAt, users.email);
}

/**
 * Disables an account: it can no longer sign in, and its sessions and mailed links end now; the
 * owner is told when it was not disabled already. Returns how many sessions ended, and whether the
 * owner was mailed (not without a confirmed address, nor over its mail cap).
 */
export async function disableAccount(
  db: Database,
  realmSlug: string,
  email: string,
  mail: OperatorMail,
): Promise<{ changed: boolean; revoked: number; told: boolean }> {
  const { realm, user } = await accountOf(db, realmSlug, email);
  return db.transaction(async (tx) => {
    const changed = await tx
      .update(users)
      .set({ disabledAt: new Date() })
      .where(and(eq(users.id, user.id), isNull(users.disabledAt)))
      .returning({ id: users.id });
    const revoked = await endSessions(tx, user.id);
    await endMailedLinks(tx, user.id);
    if (!changed.length) return { changed: false, revoked, told: false };
    await recordEvent(tx, operator(realm), 'account_disabled', user.id);
    return { changed: true, revoked, told: await queueAccountDisabled(tx, mail, realm, user) };
  });
}

export async function enableAccount(db: Database, realmSlug: string, email: string): Promise<{ changed: boolean }> {
  const { realm, user } = await accountOf(db, realmSlug, email);
  return db.transaction(async (tx) => {
    const changed = await tx
      .update(users)
      .set({ disabledAt: null })
      .where(eq(users.id, user.id))
      .returning({ was: users.disabledAt });
    const wasDisabled = user.disabledAt !== null;
    if (wasDisabled) await recordEvent(tx, operator(realm), 'account_enabled', user.id);
    return { changed: changed.length === 1 && wasDisabled };
  });
}

/** Ends every session and mailed link of an account (it may sign in again). Returns how many sessions ended. */
export async function revokeAccountSessions(db: Database, realmSlug: string, email: string): Promise<number> {
  const { realm, user } = await accountOf(db, realmSlug, email);
  return db.transaction(async (tx) => {
    const revoked = await endSessions(tx, user.id);
    await endMailedLinks(tx, user.id);
    await recordEvent(tx, operator(realm), 'sessions_revoked', user.id);
    return revoked;
  });
}

/**
 * Turns off an account's two-step sign-in for a person who lost their authenticator app and
 * their recovery codes (the operator checks who they are out of band): the app, the recovery
 * codes and pending sign-ins go, and every session ends; the owner is told when it was on.
 * Returns whether it was on, how many sessions ended, and whether the owner was mailed.
 */
export async function resetSecondStep(
  db: Database,
  realmSlug: string,
  email: string,
  mail: OperatorMail,
): Promise<{ wasOn: boolean; revoked: number; told: boolean }> {
  const { realm, user } = await accountOf(db, realmSlug, email);
  return db.transaction(async (tx) => {
    await removeSecondStep(tx, user.id);
    await endMailedLinks(tx, user.id);
    const revoked = await endSessions(tx, user.id);
    await recordEvent(tx, operator(realm), 'two_step_reset', user.id);
    const told = user.twoStep && (await queueTwoStepReset(tx, mail, realm, user));
    return { wasOn: user.twoStep, revoked, told };
  });
}

/**
 * Ends every session of every account of a realm (a suspected theft of session tokens, a change
 * of the realm's rules): each may sign in again. One event per realm, from no address. Returns how many ended.
 */
export async function revokeRealmSessions(db: Database, realmSlug: string): Promise<number> {
  const realm = await realmOf(db, realmSlug);
  return db.transaction(async (tx) => {
    const inRealm = tx.select({ id: users.id }).from(users).where(eq(users.realmId, realm.id));
    const gone = await tx.delete(sessions).where(inArray(sessions.userId, inRealm)).returning({ id: sessions.id });
    await recordEvent(tx, operator(realm), 'realm_sessions_revoked');
    return gone.length;
  });
}
