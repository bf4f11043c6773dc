import { eq } from 'drizzle-orm';
import { realms, type Database } from '@accounts/db';
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

/** Turns the realm's "require a verified email to sign in" setting on or off. */
export async function setRequireVerifiedEmail(db: Database, slug: string, on: boolean): Promise<void> {
  const done = await db
    .update(realms)
    .set({ requireVerifiedEmail: on })
    .where(eq(realms.slug, slug))
    .returning({ id: realms.id });
  if (done.length === 0) throw new RealmError(`There is no realm "${slug}".`);
}
