import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
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

/** The mode of every entry under `dir` (itself included) that lets anyone but the owner in: none for a private one. */
function openToOthers(dir: string): string[] {
  const open = (path: string) =>
    lstatSync(path).mode & 0o077 ? [`${(lstatSync(path).mode & 0o777).toString(8)} ${path}`] : [];
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const path = join(d, e.name);
      if (e.isSymbolicLink()) return [];
      return [...open(path), ...(e.isDirectory() ? walk(path) : [])];
    });
  return [...open(dir), ...walk(dir)];
}

describe('PGlite data directory permissions', () => {
  const root = mkdtempSync(join(tmpdir(), 'accounts-db-mode-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(
    'makes a new data directory the service user’s alone: itself and its directories 0700, its files 0600',
    FIRST_START,
    async () => {
      const dir = join(root, 'new', 'data');
      const h = await openDatabase({ dataDir: dir });
      expect(h.dataDirWasOpen).toBe(false);
      // Running: the directory keeps everyone else out of what PGlite writes meanwhile.
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'PG_VERSION')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'pg_wal')).mode & 0o777).toBe(0o700);
      await h.migrate();
      await h.close();
      // Stopped: every file is the owner's alone too, the ones written while it ran included.
      expect(readdirSync(join(dir, 'pg_wal')).length).toBeGreaterThan(0);
      expect(statSync(join(dir, 'global', 'pg_internal.init')).mode & 0o777).toBe(0o600);
      expect(openToOthers(dir)).toEqual([]);
    },
  );

  it(
    'closes a data directory left open at start-up, says so once, and never follows a link out of it',
    FIRST_START,
    async () => {
      const dir = join(root, 'new', 'data');
      // As earlier versions left it: the directory 0755, the database's files 0666.
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'pg_wal'), 0o755);
      chmodSync(join(dir, 'PG_VERSION'), 0o666);
      chmodSync(join(dir, 'postgresql.conf'), 0o666);
      const outside = join(root, 'outside.txt');
      writeFileSync(outside, 'not the database', { mode: 0o644 });
      chmodSync(outside, 0o644);
      symlinkSync(outside, join(dir, 'link-out'));
      expect(openToOthers(dir).length).toBeGreaterThanOrEqual(4);

      const h = await openDatabase({ dataDir: dir });
      expect(h.dataDirWasOpen).toBe(true);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const path of ['pg_wal', 'PG_VERSION', 'postgresql.conf'])
        expect(statSync(join(dir, path)).mode & 0o077, path).toBe(0);
      await h.close();
      expect(openToOthers(dir)).toEqual([]);
      expect(statSync(outside).mode & 0o777).toBe(0o644);
      const again = await openDatabase({ dataDir: dir });
      expect(again.dataDirWasOpen).toBe(false);
      await again.close();
    },
  );
});

/**
 * Runs a tiny WebAssembly loop until V8 has moved it to its optimising tier (TurboFan) or 200
 * rounds have passed, and tells which tier it ended on. Plain JavaScript, so it also runs in a
 * child process; needs --allow-natives-syntax.
 */
const HOT_LOOP_TIER = `(async () => {
  const isTurboFan = new Function('f', 'return %IsTurboFanFunction(f)');
  // (func (export "f") (param i32) (result i32)): sums n..1 in a loop.
  const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,10,27,1,25,1,1,127,
    3,64,32,1,32,0,106,33,1,32,0,65,1,107,34,0,13,0,11,32,1,11]);
  const f = (await WebAssembly.instantiate(bytes)).instance.exports.f;
  for (let i = 0; i < 200 && !isTurboFan(f); i++) {
    f(100000);
    await new Promise((r) => setTimeout(r, 5));
  }
  return { sum: f(10), turboFan: isTurboFan(f) };
})()`;

describe('PGlite and WebAssembly tiers', () => {
  it('compiles WebAssembly with Liftoff only once PGlite is opened (no TurboFan code held)', FIRST_START, async () => {
    // The same loop in a process of its own, with V8's defaults: it does reach TurboFan.
    const control = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '-e', `${HOT_LOOP_TIER}.then((r) => console.log(JSON.stringify(r)))`],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(JSON.parse(control.stdout)).toEqual({ sum: 55, turboFan: true });

    const h = await openDatabase({ dataDir: 'memory://' });
    await h.ping();
    setFlagsFromString('--allow-natives-syntax');
    const here = (await (0, eval)(HOT_LOOP_TIER)) as { sum: number; turboFan: boolean };
    expect(here).toEqual({ sum: 55, turboFan: false });
    await h.close();
  });
});

describe('PGlite and the event loop', () => {
  it('lets the event loop turn between statements queued by many requests at once', async () => {
    const h = await openDatabase({ dataDir: 'memory://', hearChanges: false });
    await h.ping();
    // What a health check or a socket's data needs: one turn of the event loop, counted while
    // 40 statements (half of them inside transactions) wait for PGlite one behind another.
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const statements = Array.from({ length: 20 }, (_, i) => [
      h.db.execute(sql`select ${i}::int as n`),
      h.db.transaction(async (tx) => tx.execute(sql`select ${i}::int as n`)),
    ]).flat();
    const rows = await Promise.all(statements);
    counting = false;
    expect(rows).toHaveLength(40);
    // Back to back (a statement starting when the one before settled) they ran without a single turn.
    expect(turns).toBeGreaterThanOrEqual(40);
    await h.close();
  });
});
