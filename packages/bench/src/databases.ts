import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export type DatabaseKind = 'pglite' | 'postgres';

/** A database for one server under test, made for this run only and dropped after it. */
export interface FreshDatabase {
  kind: DatabaseKind;
  /** DATABASE_URL or DATA_DIR for the server: both servers read the same variables. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A new database on the PostgreSQL server at `serverUrl` (so runs never pile up data in a
 * shared one), or, without a server, a new temporary directory for embedded PGlite.
 */
export async function freshDatabase(serverUrl: string | undefined, label: string): Promise<FreshDatabase> {
  if (!serverUrl) {
    const dir = await mkdtemp(join(tmpdir(), `accounts-bench-${label}-`));
    return { kind: 'pglite', env: { DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } catch (err) {
    await admin.end();
    throw err;
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    kind: 'postgres',
    // A server on PostgreSQL needs a SECRET_KEY; this run's is made for it alone.
    env: { DATABASE_URL: url.toString(), SECRET_KEY: randomBytes(32).toString('hex') },
    drop: async () => {
      try {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}
