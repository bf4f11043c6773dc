import { createHasher, createVault, secretCensus, setEventRetention, type Hasher, type Vault } from '@accounts/api';
import { DATA_DIR_WAS_OPEN, openDatabase, type DatabaseHandle, type QueryObserver } from '@accounts/db';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { databaseOptionsFrom, hasherOptionsFrom } from './config-options.js';
import { createMetrics } from './metrics.js';
import { listenForMetrics } from './metrics-listener.js';
import { joinObservers, type Observers } from './observers.js';
import { pepperFor, secretKeyFor } from './secret-key.js';
import type { Tracing } from './tracing.js';

/** A server waits this long for DATA_DIR's lock when none is configured: a killed predecessor's goes stale meanwhile. */
const SERVER_LOCK_WAIT_MS = 15_000;

export interface ServerDeps {
  /** An open, migrated database to serve from; stop() leaves it open. Without one the server opens (and closes) its own. */
  database?: DatabaseHandle;
  /** A hashing pool to share; stop() leaves it running. Without one the server starts (and stops) its own. */
  hasher?: Hasher;
  /** A pino destination, for tests that read the log. */
  logStream?: NodeJS.WritableStream;
  /** Traces, started by main.ts before anything else loads when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
}

export interface Server {
  app: FastifyInstance;
  /** Listens on HOST:PORT (and METRICS_PORT); resolves with the address once ready. */
  start(): Promise<string>;
  /** Where GET /metrics answers once started (METRICS_PORT set), else undefined. */
  metricsAddress(): string | undefined;
  /**
   * Finishes the requests in flight (new ones are refused), then closes what the server opened.
   * Rejects if requests still run after SHUTDOWN_TIMEOUT_SECONDS. Calling it again waits for the same stop.
   * `signal`: what asked for the stop, for the log.
   */
  stop(signal?: string): Promise<void>;
}

export class ShutdownTimeoutError extends Error {
  constructor() {
    super('requests still running after the shutdown timeout');
  }
}

/**
 * The database the configuration names, migrated: by DATABASE_MIGRATION_URL's role when it is set
 * (the serving role then needs no right to change the schema), else by the serving role itself.
 */
async function openConfiguredDatabase(config: Config, observer?: QueryObserver): Promise<DatabaseHandle> {
  if (config.DATABASE_URL && config.DATABASE_MIGRATION_URL) {
    const migrating = await openDatabase({
      ...databaseOptionsFrom(config, SERVER_LOCK_WAIT_MS),
      url: config.DATABASE_MIGRATION_URL,
      poolSize: 1,
      hearChanges: false,
    });
    try {
      await migrating.migrate();
      await setEventRetention(migrating.db, config.EVENT_RETENTION_DAYS);
    } finally {
      await migrating.close();
    }
  }
  const database = await openDatabase({ ...databaseOptionsFrom(config, SERVER_LOCK_WAIT_MS), observer });
  try {
    if (!(config.DATABASE_URL && config.DATABASE_MIGRATION_URL)) {
      await database.migrate();
      await setEventRetention(database.db, config.EVENT_RETENTION_DAYS);
    }
    return database;
  } catch (err) {
    await database.close();
    throw err;
  }
}

/**
 * Says at start-up what still depends on an earlier pepper or key, and what to do about it
 * (docs/operations.md, "Rotating secrets"). Never fails a start: the count is advice.
 */
async function reportEarlierSecrets(app: FastifyInstance, database: DatabaseHandle, vault: Vault, hasher: Hasher) {
  const census = await secretCensus(database.db, vault, hasher.pepperId).catch(() => null);
  if (!census) return;
  if (census.hashesWithoutPepperId > 0)
    app.log.warn(
      { hashes: census.hashesWithoutPepperId },
      'password hashes from before pepper ids: each is checked against the current pepper, PASSWORD_PEPPER_PREVIOUS and the public default of earlier versions, and re-hashed under the current pepper at its next sign-in; if this installation ran with its own PASSWORD_PEPPER, keep it set (or list it in PASSWORD_PEPPER_PREVIOUS)',
    );
  const underPrevious = census.hashesUnderOtherPeppers - census.hashesWithoutPepperId;
  if (underPrevious > 0)
    app.log.info(
      { hashes: underPrevious },
      'password hashes under a previous pepper: keep PASSWORD_PEPPER_PREVIOUS until they are re-hashed at their next sign-in',
    );
  if (census.recoveryCodesUnderOtherKeys > 0)
    app.log.info(
      { recoveryCodes: census.recoveryCodesUnderOtherKeys },
      'recovery codes digested under an earlier SECRET_KEY: keep SECRET_KEY_PREVIOUS until they are used or replaced',
    );
}

/**
 * The accounts service, as main.ts runs it and the tests start it: the database, the hashing
 * pool and the fastify app, with one start-up and one shutdown (tRPC's fastify example:
 * `return { server, start, stop }`).
 */
export async function createServer(config: Config, deps: ServerDeps = {}): Promise<Server> {
  // What this server opened itself, closed by stop() after the app (last opened, first closed).
  const owned: (() => Promise<void>)[] = [];
  const closeOwned = async () => {
    for (const close of [...owned].reverse()) await close();
  };
  let app: FastifyInstance;
  let hasher: Hasher;
  let database: DatabaseHandle;
  let vault: Vault;
  const generated: string[] = [];
  // Metrics and traces watch only what this server opens itself (a shared pool or database is not its own).
  const metrics = config.METRICS_PORT === undefined ? undefined : createMetrics();
  const observers: Observers = joinObservers(metrics, deps.tracing);
  let metricsListener: Awaited<ReturnType<typeof listenForMetrics>> | undefined;
  try {
    database = deps.database ?? (await openConfiguredDatabase(config, observers.statements));
    if (!deps.database) owned.push(() => database.close());
    // After the database: its data directory is held, and keeps the generated key and pepper.
    const secret = secretKeyFor(config);
    if (secret.generated) generated.push(secret.generated);
    if (!deps.hasher) {
      const pepper = pepperFor(config);
      if (pepper.generated) generated.push(pepper.generated);
      hasher = await createHasher({ ...hasherOptionsFrom(config, pepper.pepper), observer: observers.hashing });
    } else hasher = deps.hasher;
    if (!deps.hasher) owned.push(() => hasher.close());
    // Recovery codes are hashed on the hashing pool.
    vault = createVault(secret.key, config.SECRET_KEY_PREVIOUS, hasher);
    app = await buildApp({
      config,
      db: database.db,
      hasher,
      vault,
      logStream: deps.logStream,
      metrics,
      observer: observers.procedures,
      logMixin: deps.tracing?.logFields,
    });
    metrics?.watch({ db: database.db, hasher, poolSize: database.poolSize, driver: database.driver });
  } catch (err) {
    await closeOwned();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  const stop = async (signal?: string) => {
    app.log.info(signal ? { signal } : {}, 'stopping: finishing requests in flight');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ShutdownTimeoutError()), config.SHUTDOWN_TIMEOUT_SECONDS * 1000);
      timer.unref();
    });
    // A second close() (a test may have begun one) waits for the same close.
    const closing = (async () => {
      await app.close();
      // Scraped until the requests in flight are done, so the last counts are seen.
      await metricsListener?.close();
      await closeOwned();
    })();
    // Past the timeout the caller gives up on it (main.ts exits); a late failure is not unhandled.
    closing.catch(() => {});
    try {
      await Promise.race([closing, timeout]);
    } finally {
      clearTimeout(timer);
    }
    app.log.info('stopped');
  };

  return {
    app,
    async start() {
      for (const file of generated)
        app.log.info({ file }, 'secret generated: back this file up with the database, apart from its dumps');
      if (database.dataDirWasOpen) app.log.warn({ dataDir: config.DATA_DIR }, DATA_DIR_WAS_OPEN);
      await reportEarlierSecrets(app, database, vault, hasher);
      const address = await app.listen({ port: config.PORT, host: config.HOST });
      if (metrics && config.METRICS_PORT !== undefined) {
        metricsListener = await listenForMetrics(metrics.registry, config.METRICS_PORT, config.HOST);
        app.log.info({ metrics: `${metricsListener.address}/metrics` }, 'metrics served');
      }
      const db = database.driver === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL';
      app.log.info(
        { db, workers: hasher.stats().workers, cost: config.BCRYPT_COST, node: process.version },
        `accounts service ready on ${address.replace('127.0.0.1', 'localhost')}`,
      );
      return address;
    },
    metricsAddress: () => metricsListener && `${metricsListener.address}/metrics`,
    stop: (signal) => (stopping ??= stop(signal)),
  };
}
