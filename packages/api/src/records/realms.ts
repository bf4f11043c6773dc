import { eq } from 'drizzle-orm';
import { isUniqueViolation, realms, type Database, type Realm } from '@accounts/db';
import { realmNameField, realmSlugField } from '@accounts/validators';

export const DEFAULT_REALM_SLUG = 'default';

export async function findRealm(db: Database, slug: string): Promise<Realm | null> {
  const [realm] = await db.select().from(realms).where(eq(realms.slug, slug)).limit(1);
  return realm ?? null;
}

export async function findRealmById(db: Database, id: string): Promise<Realm | null> {
  const [realm] = await db.select().from(realms).where(eq(realms.id, id)).limit(1);
  return realm ?? null;
}

export class RealmError extends Error {}

export async function createRealm(db: Database, slug: string, name: string): Promise<Realm> {
  const s = realmSlugField.safeParse(slug);
  if (!s.success) throw new RealmError(s.error.issues[0]!.message);
  const n = realmNameField.safeParse(name);
  if (!n.success) throw new RealmError(n.error.issues[0]!.message);
  try {
    const [realm] = await db.insert(realms).values({ slug: s.data, name: n.data }).returning();
    return realm!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new RealmError(`A realm "${s.data}" already exists.`);
    throw err;
  }
}

/**
 * Gives a realm the display name people see on its pages and in its mail (the default realm
 * too, which goes by the service's name until it has one). Servers see it within their realm
 * cache's few seconds.
 */
export async function renameRealm(db: Database, slug: string, name: string): Promise<Realm> {
  const n = realmNameField.safeParse(name);
  if (!n.success) throw new RealmError(n.error.issues[0]!.message);
  const [realm] = await db.update(realms).set({ name: n.data }).where(eq(realms.slug, slug)).returning();
  if (!realm) throw new RealmError(`There is no realm "${slug}".`);
  return realm;
}

export async function listRealms(db: Database): Promise<Realm[]> {
  return db.select().from(realms).orderBy(realms.createdAt);
}
