import { createHasher } from '@accounts/api';
import { DataDirBusyError, openDatabase } from '@accounts/db';
import { buildApp } from './app.js';
import { ConfigError, DEFAULT_PEPPER, loadConfig, type Config } from './config.js';

async function start(config: Config) {
  // Waits a little for a lock left by a killed predecessor to go stale.
  process.env.DATA_DIR_LOCK_WAIT_MS ??= '15000';
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, hearChanges: config.SESSION_CACHE });
  await database.migrate();
  const hasher = await createHasher({
    cost: config.BCRYPT_COST,
    pepper: config.PASSWORD_PEPPER,
    workers: config.HASH_WORKERS,
    queueMax: config.HASH_QUEUE_MAX,
  });
  const app = await buildApp({ config, database, hasher });
  if (config.PASSWORD_PEPPER === DEFAULT_PEPPER) app.log.warn('PASSWORD_PEPPER is not set: using the documented default; set a secret one in production');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing requests in flight');
    const force = setTimeout(() => {
      app.log.error('requests still running after the shutdown timeout; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_SECONDS * 1000);
    force.unref();
    await app.close();
    await hasher.close();
    await database.close();
    app.log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ port: config.PORT, host: config.HOST });
  const db = database.driver === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL';
  app.log.info({ db, workers: hasher.stats().workers, cost: config.BCRYPT_COST }, `accounts service ready on ${address.replace('127.0.0.1', 'localhost')}`);
}

try {
  await start(loadConfig());
} catch (err) {
  if (err instanceof ConfigError || err instanceof DataDirBusyError) {
    console.error(err.message);
  } else {
    console.error('failed to start:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
}
