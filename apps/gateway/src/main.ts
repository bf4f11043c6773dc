// Traces only when asked for: without OTEL_EXPORTER_OTLP_ENDPOINT the OpenTelemetry SDK is never
// loaded. With it, it starts before the server's modules load, so its instrumentations see them.
const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (await import('./tracing.js')).startTracing() : undefined;
await (await import('./serve.js')).serve(tracing);

export {};
