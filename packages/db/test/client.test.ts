import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    const [other] = await h.db
      .insert(realms)
      .values({ slug: `r${driver}`, name: 'Other' })
      .returning();
    await h.db.insert(users).values({ realmId: other!.id, name: 'A', email: 'dup@example.com', passwordHash: 'x' });
    const [row] = await h.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.email, 'dup@example.com'));
    expect(row!.n).toBe(2);
  });

  it('re-running the migrations changes nothing', async () => {
    await h.migrate();
    const rows = await h.db.select().from(realms).where(eq(realms.slug, 'default'));
    expect(rows).toHaveLength(1);
  });
});

// A first start on a new directory runs initdb in a child process: slow on a busy machine.
const FIRST_START = { timeout: 180_000 };

describe('PGlite data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('persists across opens and refuses a second process while held', FIRST_START, async () => {
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

describe('PGlite start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-db-setup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a new data directory, runs with the small memory settings, and reopens it', FIRST_START, async () => {
    const first = await openDatabase({ dataDir: dir });
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dir, '.initdb'))).toBe(false);
    const settings = await first.db.execute(
      sql`select name, setting, unit from pg_settings where name in ('shared_buffers', 'work_mem', 'fsync') order by name`,
    );
    expect(JSON.parse(JSON.stringify(settings))).toMatchObject({
      rows: [
        { name: 'fsync', setting: 'off' },
        { name: 'shared_buffers', setting: '2048', unit: '8kB' },
        { name: 'work_mem', setting: '2048', unit: 'kB' },
      ],
    });
    await first.migrate();
    await first.db.insert(realms).values({ slug: 'setup', name: 'Setup' });
    await first.close();

    const again = await openDatabase({ dataDir: dir });
    expect(await again.db.select().from(realms).where(eq(realms.slug, 'setup'))).toHaveLength(1);
    await again.close();
  });

  it(
    'makes the database again when an earlier first start was interrupted before it finished',
    FIRST_START,
    async () => {
      const broken = mkdtempSync(join(dir, 'broken-'));
      // What a kill part way through leaves: the staging folder and some moved files, no PG_VERSION.
      mkdirSync(join(broken, '.initdb', 'base'), { recursive: true });
      mkdirSync(join(broken, 'base', '1'), { recursive: true });
      writeFileSync(join(broken, 'base', '1', 'junk'), 'x');
      const h = await openDatabase({ dataDir: broken });
      await h.migrate();
      expect(await h.db.select().from(realms).where(eq(realms.slug, 'default'))).toHaveLength(1);
      await h.close();
      expect(existsSync(join(broken, 'base', '1', 'junk'))).toBe(false);
    },
  );
});
