import { DataDirBusyError } from '@accounts/db';
import { ConfigError, type Config } from './config.js';
import { createServer, type Server } from './server.js';
import type { Tracing } from './tracing.js';

/** Stops on SIGTERM or SIGINT; exits 1 when requests outlast SHUTDOWN_TIMEOUT_SECONDS. */
function stopOnSignals(server: Server, tracing?: Tracing) {
  // The spans still buffered are sent before the process exits (bounded by the exporter's timeout).
  const exit = (code: number) => void (tracing?.shutdown() ?? Promise.resolve()).finally(() => process.exit(code));
  const stop = (signal: string) => {
    server.stop(signal).then(
      () => exit(0),
      (err: unknown) => {
        server.app.log.error(`${err instanceof Error ? err.message : String(err)}; exiting`);
        exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** What `node dist/main.js` runs once traces, if any, have started. */
export async function serve(config: Config, tracing?: Tracing) {
  try {
    const server = await createServer(config, { tracing });
    stopOnSignals(server, tracing);
    await server.start();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof DataDirBusyError) {
      console.error(err.message);
    } else {
      console.error('failed to start:', err instanceof Error ? err.message : err);
    }
    process.exit(1);
  }
}
