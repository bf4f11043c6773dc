import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { pgliteAuthChanges, postgresAuthChanges, unheardChanges, type AuthChangeFeed } from './auth-changes.js';
import { lockDataDir } from './data-dir-lock.js';
import {
  compileWasmWithLiftoffOnly,
  initialiseDataDir,
  keepDataDirPrivate,
  PGLITE_START_PARAMS,
} from './pglite-setup.js';
import { takingTurns } from './pglite-turns.js';
import { observeStatements, PGLITE_METHODS, POSTGRES_METHODS, type QueryObserver } from './query-observer.js';
import * as schema from './schema.js';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Driver = 'pglite' | 'postgres';

export interface DatabaseHandle {
  db: Database;
  driver: Driver;
  /** Connections this process may open to PostgreSQL (PGlite: its one in-process connection). */
  poolSize: number;
  /** Applies the committed migrations (idempotent). */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** Changes to sessions and accounts, heard from the database (see auth-changes.ts). */
  authChanges: AuthChangeFeed;
  /** PGlite: its directory was open to other users until this open closed it (DATA_DIR_WAS_OPEN says so). */
  dataDirWasOpen?: boolean;
  close(): Promise<void>;
}

/** What the server and the commands tell the operator when an open found the data directory open to others. */
export const DATA_DIR_WAS_OPEN =
  "the data directory was open to other users of this machine, who could read the database's files: it and everything in it are now the service user's alone (directories 0700, files 0600)";

export interface OpenOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  url?: string;
  /** PGlite data directory; `memory://` keeps it in memory. */
  dataDir?: string;
  /** Max PostgreSQL connections of this process. */
  poolSize?: number;
  /**
   * Listen for changes to sessions and accounts so that session checks can be remembered
   * (default true; on PostgreSQL one more connection). Off for one-off commands, and for
   * deployments whose connection pooler drops notifications (PgBouncer in transaction mode).
   */
  hearChanges?: boolean;
  /** Where the migrations are (default MIGRATIONS_DIR). */
  migrationsDir?: string;
  /** How long to wait for a PGlite data directory another process holds (default 0: refuse at once). */
  lockWaitMs?: number;
  /** Told of every statement the service sends (metrics, traces); none: nothing is wrapped. */
  observer?: QueryObserver;
  /** PGlite in memory: start from this data directory (a `dumpDataDir` tarball) instead of an empty one. */
  template?: Blob;
}

// A bundle carries the migrations beside itself; the source tree keeps them beside src/.
export const MIGRATIONS_DIR =
  [new URL('./migrations', import.meta.url), new URL('../migrations', import.meta.url)]
    .map((u) => fileURLToPath(u))
    .find((dir) => existsSync(`${dir}/meta/_journal.json`)) ?? fileURLToPath(new URL('../migrations', import.meta.url));

export async function openDatabase(opts: OpenOptions): Promise<DatabaseHandle> {
  const hear = opts.hearChanges ?? true;
  const migrations = opts.migrationsDir ?? MIGRATIONS_DIR;
  const handle = await (opts.url
    ? openPostgres(opts.url, opts.poolSize ?? 10, hear, migrations, opts.observer)
    : openPglite(opts.dataDir ?? './.data', hear, migrations, opts.lockWaitMs ?? 0, opts.observer, opts.template));
  if (hear) feeds.set(handle.db, handle.authChanges);
  return handle;
}

const feeds = new WeakMap<Database, AuthChangeFeed>();

/** The change feed of a database opened by openDatabase (none for one made another way). */
export const authChangesOf = (db: Database): AuthChangeFeed | undefined => feeds.get(db);

/**
 * Statements that change what a session check answers: the same ones migration 0004's triggers
 * announce (a session's last-seen time moving forward is not one). Anywhere in the text, names
 * quoted or not, so raw SQL and CTEs count too; a false match only forgets more than needed.
 */
const CHANGES_SESSIONS =
  /\b(?:update\s+(?:only\s+)?(?:"?public"?\.)?"?(?:sessions|users)"?\s+(?:as\s+\S+\s+)?set\s+(?!"?last_seen_at"?\s*=\s*now\(\)\s+where\b)|delete\s+from\s+(?:only\s+)?(?:"?public"?\.)?"?(?:sessions|users)\b|truncate\b)/i;

type Client = ReturnType<typeof postgres>;

/**
 * The client drizzle is given, reporting each change of sessions or accounts this process makes
 * once it has committed: after the statement, or after the transaction it is part of.
 */
function reportingOwnWrites(client: Client, committed: () => void): Client {
  const wrap = <C extends object>(target: C, changed: (query: PromiseLike<unknown>) => void): C =>
    new Proxy(target, {
      get(object, prop, receiver) {
        const value = Reflect.get(object, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'unsafe')
          return (query: string, ...rest: unknown[]) => {
            const pending = (value as (...a: unknown[]) => PromiseLike<unknown>).call(object, query, ...rest);
            if (CHANGES_SESSIONS.test(query)) changed(pending);
            return pending;
          };
        if (prop === 'begin' || prop === 'savepoint')
          return (...args: unknown[]) => {
            const body = args.pop() as (tx: object) => unknown;
            let dirty = false;
            const inner = (tx: object) => body(wrap(tx, () => void (dirty = true)));
            const done = (value as (...a: unknown[]) => Promise<unknown>).call(object, ...args, inner);
            // A savepoint's changes commit with the transaction around it.
            if (prop === 'savepoint') return done.then((result) => (dirty && changed(Promise.resolve()), result));
            return done.then((result) => (dirty && committed(), result));
          };
        return value;
      },
    });
  return wrap(client, (query) => void query.then(committed, () => {}));
}

/** Any fixed number: "acct" in ASCII. */
const MIGRATION_LOCK_ID = 0x61636374;

function openPostgres(
  url: string,
  max: number,
  hear: boolean,
  migrationsFolder: string,
  observer?: QueryObserver,
): DatabaseHandle {
  // onnotice silences "relation already exists, skipping" chatter from idempotent migrations.
  // While the server is down, a query waits for the next reconnect attempt. The driver's default
  // backoff grows to 20 s; capped at 1 s, requests fail fast (503) and recover within a second.
  const sql = postgres(url, {
    max,
    connect_timeout: 5,
    idle_timeout: 30,
    backoff: (retries) => Math.min(0.05 * 2 ** retries, 1),
    onnotice: () => {},
  });
  const heard = hear ? postgresAuthChanges(url) : null;
  const authChanges = heard ?? unheardChanges();
  const reporting = heard ? reportingOwnWrites(sql, heard.ownWrite) : sql;
  const client = observer ? observeStatements(reporting, observer, POSTGRES_METHODS) : reporting;
  const db = drizzlePostgres({ client, schema }) as unknown as Database;
  return {
    db,
    driver: 'postgres',
    poolSize: max,
    authChanges,
    migrate: async () => {
      // Instances starting together on a new database take turns, or all but one would fail on
      // "table already exists": a session advisory lock, held on a connection of its own.
      const lock = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK_ID}::bigint)`;
        await migratePostgres(db as never, { migrationsFolder });
      } finally {
        await lock.end({ timeout: 5 }); // ending the session releases the lock
      }
    },
    ping: async () => void (await sql`select 1`),
    close: async () => {
      await authChanges.close();
      await sql.end({ timeout: 5 });
    },
  };
}

async function openPglite(
  dataDir: string,
  hear: boolean,
  migrationsFolder: string,
  lockWaitMs: number,
  observer?: QueryObserver,
  template?: Blob,
): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  let release = async () => {};
  let dataDirWasOpen = false;
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    release = await lockDataDir(dataDir, lockWaitMs);
  }
  try {
    if (!inMemory) {
      await initialiseDataDir(dataDir, migrationsFolder);
      dataDirWasOpen = keepDataDirPrivate(dataDir).wasOpen;
    }
    compileWasmWithLiftoffOnly();
    const client = inMemory
      ? new PGlite({ dataDir: 'memory://', startParams: PGLITE_START_PARAMS, loadDataDir: template })
      : new PGlite(dataDir, { startParams: PGLITE_START_PARAMS });
    await client.waitReady;
    // Observed inside the turn-taking: a statement's time is PGlite's, not the wait for its turn.
    const observed = observer ? observeStatements(client, observer, PGLITE_METHODS) : client;
    const db = drizzlePglite({ client: takingTurns(observed), schema }) as unknown as Database;
    const authChanges = hear ? await pgliteAuthChanges(client) : unheardChanges();
    return {
      db,
      driver: 'pglite',
      poolSize: 1,
      authChanges,
      dataDirWasOpen,
      migrate: () => migratePglite(db as never, { migrationsFolder }),
      ping: async () => void (await client.query('select 1')),
      close: async () => {
        await authChanges.close();
        await client.close();
        try {
          // What PGlite wrote while it ran is open to all (its modes ignore the umask); the
          // directory kept others out meanwhile, and from now on its files do too.
          if (!inMemory) keepDataDirPrivate(dataDir);
        } finally {
          await release();
        }
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
