import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from './config.js';

// Under steady load V8 lets the old generation grow to four times what is live before it
// collects: on a quiet 2-core machine 40 MB live became 180 MB of heap at 5,000 req/s. Half as
// much again as what is live keeps the benchmark's peak about 40 MB lower than twice would, at no
// throughput the benchmark could tell apart (docs/operations.md, "Memory"). Read at every
// collection, so it holds however the gateway is started, for the main thread and the workers.
setFlagsFromString('--heap-growing-percent=50');

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
