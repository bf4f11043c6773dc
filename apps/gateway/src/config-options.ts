import type { HasherOptions } from '@accounts/api';
import type { OpenOptions } from '@accounts/db';
import type { Config } from './config.js';

// What the server, the CLI and the tests open from the configuration, read in one place so they
// cannot drift apart.

/** The hashing pool the configuration asks for; `pepper`: the one in use when PASSWORD_PEPPER is unset (secret-key.ts). */
export function hasherOptionsFrom(config: Config, pepper = config.PASSWORD_PEPPER): HasherOptions {
  if (!pepper) throw new Error('no PASSWORD_PEPPER: pass the generated one (pepperFor)');
  return {
    cost: config.BCRYPT_COST,
    pepper,
    previousPeppers: config.PASSWORD_PEPPER_PREVIOUS,
    workers: config.HASH_WORKERS,
    queueMax: config.HASH_QUEUE_MAX,
  };
}

/** The database migrations run on: DATABASE_MIGRATION_URL's role when set, else the serving one. */
export const migrationUrlOf = (config: Config) => config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL;

/**
 * The database the configuration names. `lockWaitMs` is the caller's wait for DATA_DIR's lock when
 * DATA_DIR_LOCK_WAIT_MS is unset: a server waits out a killed predecessor's, a command does not.
 */
export const databaseOptionsFrom = (config: Config, lockWaitMs: number): OpenOptions => ({
  url: config.DATABASE_URL,
  dataDir: config.DATA_DIR,
  hearChanges: config.SESSION_CACHE,
  migrationsDir: config.MIGRATIONS_DIR,
  lockWaitMs: config.DATA_DIR_LOCK_WAIT_MS ?? lockWaitMs,
});
