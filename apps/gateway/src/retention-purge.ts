import { purgeExpired, type AccountConfig, type Database } from '@accounts/api';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';

/**
 * Runs the retention purge in the background every PURGE_INTERVAL_SECONDS (never two at once),
 * from the moment the server is ready until it closes; a stop waits for a run in flight.
 */
export function schedulePurge(
  app: FastifyInstance & { draining: boolean },
  db: Database,
  accounts: AccountConfig,
  config: Config,
) {
  if (config.PURGE_INTERVAL_SECONDS === 0) return;
  let running: Promise<void> | null = null;
  const run = () => {
    if (running || app.draining) return;
    running = purgeExpired(db, accounts, { eventRetentionMs: config.EVENT_RETENTION_DAYS * 86_400_000 })
      .then((purged) => {
        if (Object.values(purged).some((n) => n > 0)) app.log.info({ purged }, 'retention purge');
      })
      .catch((err: unknown) =>
        app.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'retention purge failed; next run will retry',
        ),
      )
      .finally(() => {
        running = null;
      });
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', (done) => {
    timer = setInterval(run, config.PURGE_INTERVAL_SECONDS * 1000);
    timer.unref();
    done();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
