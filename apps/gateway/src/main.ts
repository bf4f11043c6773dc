import { DataDirBusyError } from '@accounts/db';
import { ConfigError, loadConfig } from './config.js';
import { createServer, type Server } from './server.js';

/** Stops on SIGTERM or SIGINT; exits 1 when requests outlast SHUTDOWN_TIMEOUT_SECONDS. */
function stopOnSignals(server: Server) {
  const stop = (signal: string) => {
    server.stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        server.app.log.error(`${err instanceof Error ? err.message : String(err)}; exiting`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

try {
  const server = await createServer(loadConfig());
  stopOnSignals(server);
  await server.start();
} catch (err) {
  if (err instanceof ConfigError || err instanceof DataDirBusyError) {
    console.error(err.message);
  } else {
    console.error('failed to start:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
}
