import { and, eq, inArray, isNull } from 'drizzle-orm';
import { realms, sessions, users, type Database } from '@accounts/db';
import { RealmError } from './realms.js';

/**
 * Whether the realm lets only accounts with a confirmed address sign in. Read from the database
 * at each sign-in (not from the cached realm), so a change by the operator applies at once.
 */
export async function realmRequiresVerifiedEmail(db: Database, realmId: string): Promise<boolean> {
  const [row] = await db
    .select({ on: realms.requireVerifiedEmail })
    .from(realms)
    .where(eq(realms.id, realmId))
    .limit(1);
  return row?.on ?? false;
}

/**
 * Turns the realm's "require a verified email to sign in" setting on or off. Turning it on ends
 * the sessions of the realm's unconfirmed accounts (the session check refuses them from then on;
 * ending them also tells every server's remembered session checks).
 */
export async function setRequireVerifiedEmail(db: Database, slug: string, on: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const done = await tx
      .update(realms)
      .set({ requireVerifiedEmail: on })
      .where(eq(realms.slug, slug))
      .returning({ id: realms.id });
    if (done.length === 0) throw new RealmError(`There is no realm "${slug}".`);
    if (!on) return;
    const unconfirmed = tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.realmId, done[0]!.id), isNull(users.emailVerifiedAt)));
    await tx.delete(sessions).where(inArray(sessions.userId, unconfirmed));
  });
}
