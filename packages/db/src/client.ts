import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { lockDataDir } from './data-dir-lock.js';
import { initialiseDataDir, PGLITE_START_PARAMS } from './pglite-setup.js';
import * as schema from './schema.js';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Driver = 'pglite' | 'postgres';

export interface DatabaseHandle {
  db: Database;
  driver: Driver;
  /** Applies the committed migrations (idempotent). */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  url?: string;
  /** PGlite data directory; `memory://` keeps it in memory. */
  dataDir?: string;
  /** Max PostgreSQL connections of this process. */
  poolSize?: number;
}

// A bundle carries the migrations beside itself; the source tree keeps them beside src/.
export const MIGRATIONS_DIR =
  process.env.MIGRATIONS_DIR ??
  [new URL('./migrations', import.meta.url), new URL('../migrations', import.meta.url)]
    .map((u) => fileURLToPath(u))
    .find((dir) => existsSync(`${dir}/meta/_journal.json`)) ??
  fileURLToPath(new URL('../migrations', import.meta.url));

export async function openDatabase(opts: OpenOptions): Promise<DatabaseHandle> {
  return opts.url ? openPostgres(opts.url, opts.poolSize ?? 10) : openPglite(opts.dataDir ?? './.data');
}

/** Any fixed number: "acct" in ASCII. */
const MIGRATION_LOCK_ID = 0x61636374;

function openPostgres(url: string, max: number): DatabaseHandle {
  // onnotice silences "relation already exists, skipping" chatter from idempotent migrations.
  // While the server is down, a query waits for the next reconnect attempt. The driver's default
  // backoff grows to 20 s; capped at 1 s, requests fail fast (503) and recover within a second.
  const sql = postgres(url, { max, connect_timeout: 5, idle_timeout: 30, backoff: (retries) => Math.min(0.05 * 2 ** retries, 1), onnotice: () => {} });
  const db = drizzlePostgres({ client: sql, schema }) as unknown as Database;
  return {
    db,
    driver: 'postgres',
    migrate: async () => {
      // Instances starting together on a new database take turns, or all but one would fail on
      // "table already exists": a session advisory lock, held on a connection of its own.
      const lock = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK_ID}::bigint)`;
        await migratePostgres(db as never, { migrationsFolder: MIGRATIONS_DIR });
      } finally {
        await lock.end({ timeout: 5 }); // ending the session releases the lock
      }
    },
    ping: async () => void (await sql`select 1`),
    close: () => sql.end({ timeout: 5 }),
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  let release = async () => {};
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    release = await lockDataDir(dataDir);
  }
  try {
    if (!inMemory) await initialiseDataDir(dataDir, MIGRATIONS_DIR);
    const client = new PGlite(inMemory ? undefined : dataDir, { startParams: PGLITE_START_PARAMS });
    await client.waitReady;
    const db = drizzlePglite({ client, schema }) as unknown as Database;
    return {
      db,
      driver: 'pglite',
      migrate: () => migratePglite(db as never, { migrationsFolder: MIGRATIONS_DIR }),
      ping: async () => void (await client.query('select 1')),
      close: async () => {
        await client.close();
        await release();
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
