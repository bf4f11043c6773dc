import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import postgres from 'postgres';
import { compileWasmWithLiftoffOnly, keepDataDirPrivate, PGLITE_START_PARAMS } from './pglite-setup.js';
import { MIGRATIONS_DIR, openDatabase, type DatabaseHandle, type Driver } from './client.js';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function testDrivers(): Driver[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestDatabase extends DatabaseHandle {
  /** The postgres:// URL of the private database, for tests that start servers. */
  url?: string;
}

export interface TempDatabase {
  /** The postgres:// URL of the new database. */
  url: string;
  drop(): Promise<void>;
}

// Making a database from nothing (initdb, then every migration) costs a test file about 5 s of
// CPU on PGlite; copying a migrated one costs under one. So each kind is made once per set of
// migrations and copied: a PGlite data directory kept as a tarball in the temporary folder, a
// PostgreSQL template database. The name carries a digest of the migrations, so a changed
// migration makes a new template and a stale one is never used.
const migrationsDigest = (() => {
  let digest: string | undefined;
  return () => {
    if (digest) return digest;
    const hash = createHash('sha256');
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else hash.update(entry.name).update(readFileSync(path));
      }
    };
    walk(MIGRATIONS_DIR);
    // PGlite's files belong to its release.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const pglite = JSON.parse(readFileSync(join(entry, '../../package.json'), 'utf8')) as { version: string };
    hash.update(pglite.version);
    return (digest = hash.digest('hex').slice(0, 16));
  };
})();

let pgliteTemplate: Promise<Blob> | undefined;

/** The migrated PGlite data directory, made by the first process that needs it (written whole, then renamed). */
function migratedPglite(): Promise<Blob> {
  return (pgliteTemplate ??= (async () => {
    const file = join(tmpdir(), `accounts-pglite-${migrationsDigest()}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    compileWasmWithLiftoffOnly();
    const client = new PGlite({ dataDir: 'memory://', startParams: PGLITE_START_PARAMS });
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_DIR });
    const tarball = await client.dumpDataDir('none');
    await client.close();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
    renameSync(partial, file);
    return tarball;
  })());
}

/** An empty database with a unique name on a PostgreSQL server (TEST_DATABASE_URL by default), dropped by drop(). */
export async function createTempDatabase(
  serverUrl = process.env.TEST_DATABASE_URL,
  { template }: { template?: string } = {},
): Promise<TempDatabase> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `accounts_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  return {
    url: databaseUrl(serverUrl, name),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

const databaseUrl = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * The migrated template database on the server, made once under an advisory lock (processes
 * starting together wait for the first); nobody stays connected to it, as copying requires.
 */
async function migratedPostgres(serverUrl: string): Promise<string> {
  const name = `accounts_template_${migrationsDigest()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK_ID})`;
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) {
      await admin.unsafe(`create database "${name}"`);
      const handle = await openDatabase({ url: databaseUrl(serverUrl, name), poolSize: 1, hearChanges: false });
      try {
        await handle.migrate();
      } finally {
        await handle.close();
      }
    }
    return name;
  } finally {
    await admin.end();
  }
}

/** Any fixed number: "tmpl" in ASCII. */
const TEMPLATE_LOCK_ID = 0x746d706c;

/**
 * A clean, migrated database for one test file: an in-memory PGlite, or a freshly
 * created PostgreSQL database on the TEST_DATABASE_URL server, dropped on close().
 * Both are copies of a migrated template; migrate() then finds nothing to do.
 */
export async function createTestDatabase(driver: Driver): Promise<TestDatabase> {
  if (driver === 'pglite') {
    const handle = await openDatabase({ dataDir: 'memory://', template: await migratedPglite() });
    await handle.migrate();
    return handle;
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const temp = await createTempDatabase(serverUrl, { template: await migratedPostgres(serverUrl) });
  const handle = await openDatabase({ url: temp.url, poolSize: 20 });
  await handle.migrate();
  return {
    ...handle,
    url: temp.url,
    close: async () => {
      await handle.close();
      await temp.drop();
    },
  };
}

/**
 * Fills an empty directory with the migrated template, as a first start would leave it (owner-only
 * modes included), for tests whose subject is not the first start itself.
 */
export async function seedDataDir(dir: string): Promise<void> {
  const client = new PGlite(dir, { startParams: PGLITE_START_PARAMS, loadDataDir: await migratedPglite() });
  await client.waitReady;
  await client.close();
  keepDataDirPrivate(dir);
}
