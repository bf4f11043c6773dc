import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase, type DatabaseHandle, type Driver } from './client.js';

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

/** An empty database with a unique name on a PostgreSQL server (TEST_DATABASE_URL by default), dropped by drop(). */
export async function createTempDatabase(serverUrl = process.env.TEST_DATABASE_URL): Promise<TempDatabase> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `accounts_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/**
 * A clean, migrated database for one test file: an in-memory PGlite, or a freshly
 * created PostgreSQL database on the TEST_DATABASE_URL server, dropped on close().
 */
export async function createTestDatabase(driver: Driver): Promise<TestDatabase> {
  if (driver === 'pglite') {
    const handle = await openDatabase({ dataDir: 'memory://' });
    await handle.migrate();
    return handle;
  }
  const temp = await createTempDatabase();
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
