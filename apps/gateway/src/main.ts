import { ConfigError, loadConfig, type Config } from './config.js';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}

// Traces only when asked for: without OTEL_EXPORTER_OTLP_ENDPOINT the OpenTelemetry SDK is never
// loaded. With it, it starts before the server's modules (fastify, http) load, so its
// instrumentations see them.
const tracing = config.OTEL_EXPORTER_OTLP_ENDPOINT ? (await import('./tracing.js')).startTracing(config) : undefined;
await (await import('./serve.js')).serve(config, tracing);
