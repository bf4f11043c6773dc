import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirBusyError, isUniqueViolation, openDatabase, realms, users } from '../src/index.js';
import { createTestDatabase, testDrivers, type TestDatabase } from '../src/testing.js';

describe.each(testDrivers())('schema on %s', (driver) => {
  let h: TestDatabase;
  beforeAll(async () => {
    h = await createTestDatabase(driver);
  });
  afterAll(() => h.close());

  it('has the default realm from the first migration', async () => {
    const rows = await h.db.select().from(realms).where(eq(realms.slug, 'default'));
    expect(rows).toHaveLength(1);
  });

  it('enforces one email per realm, case-insensitively after trimming, in the database', async () => {
    const [realm] = await h.db.select().from(realms).where(eq(realms.slug, 'default'));
    const row = { realmId: realm!.id, name: 'A', passwordHash: 'x' };
    await h.db.insert(users).values({ ...row, email: 'dup@example.com' });
    const err = await h.db
      .insert(users)
      .values({ ...row, email: ' DUP@example.com ' })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
  });

  it('allows the same email in another realm', async () => {
    const [other] = await h.db.insert(realms).values({ slug: `r${driver}`, name: 'Other' }).returning();
    await h.db.insert(users).values({ realmId: other!.id, name: 'A', email: 'dup@example.com', passwordHash: 'x' });
    const n = await h.db.execute(sql`select count(*)::int as n from users where email = 'dup@example.com'`);
    expect(JSON.stringify(n)).toContain('2');
  });

  it('re-running the migrations changes nothing', async () => {
    await h.migrate();
    const rows = await h.db.select().from(realms).where(eq(realms.slug, 'default'));
    expect(rows).toHaveLength(1);
  });
});

describe('PGlite data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('persists across opens and refuses a second process while held', async () => {
    const first = await openDatabase({ dataDir: dir });
    await first.migrate();
    await first.db.insert(realms).values({ slug: 'kept', name: 'Kept' });
    await expect(openDatabase({ dataDir: dir })).rejects.toBeInstanceOf(DataDirBusyError);
    await first.close();

    const second = await openDatabase({ dataDir: dir });
    const rows = await second.db.select().from(realms).where(eq(realms.slug, 'kept'));
    expect(rows).toHaveLength(1);
    await second.close();
  });
});
