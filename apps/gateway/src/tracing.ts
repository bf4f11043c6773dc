import type { IncomingMessage } from 'node:http';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Config } from './config.js';
import type { Observers } from './observers.js';

// Traces (OpenTelemetry), loaded by main.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set, and
// before the server's own modules so the HTTP instrumentation sees `http` load. Spans: the HTTP
// request, fastify's request and hooks, each procedure, each SQL statement (postgres.js and
// PGlite have no instrumentation of their own: packages/db shows every statement to an observer),
// the wait for a hashing thread and the hashing itself. No attribute holds a password, token,
// email or cookie: no headers are recorded, query strings are cut from every URL, SQL statements
// carry placeholders ($1), never values.

export interface Tracing extends Observers {
  /** The active trace and span ids, added to every log line. */
  logFields: () => Record<string, unknown>;
  /** Sends the spans still buffered; called once the server has stopped. */
  shutdown(): Promise<void>;
}

/** A URL or path without its query string, where tokens travel (links in mails). */
const withoutQuery = (url: string) => url.split('?')[0] ?? '';

export function startTracing(config: Config): Tracing {
  const sdk = new NodeSDK({
    serviceName: config.OTEL_SERVICE_NAME,
    // OTLP over HTTP (JSON) to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces; the exporter reads the
    // other standard OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        requestHook(span, request) {
          const url = (request as IncomingMessage).url ?? '';
          if (!url.includes('?')) return;
          // The instrumentation copies the request target, query included; keep only the path.
          span.setAttribute('http.target', withoutQuery(url));
          span.setAttribute('url.path', withoutQuery(url));
          span.setAttribute('url.query', '');
          const host = (request as IncomingMessage).headers?.host;
          if (host) span.setAttribute('http.url', `http://${host}${withoutQuery(url)}`);
        },
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        requestHook: (span, request) => span.setAttribute('url.path', withoutQuery(request.url)),
      }),
    ],
  });
  sdk.start();
  const tracer = trace.getTracer('accounts-gateway');

  const ended = (span: Span, error?: unknown) => {
    if (error) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };

  return {
    procedures: {
      procedure: (path, run) =>
        tracer.startActiveSpan(
          `procedure ${path}`,
          { attributes: { 'rpc.system': 'trpc', 'rpc.method': path } },
          async (span) => {
            try {
              return await run();
            } finally {
              span.end();
            }
          },
        ),
      outcome(_path, outcome) {
        const span = trace.getActiveSpan();
        span?.setAttribute('accounts.outcome', outcome);
        if (outcome === 'internal') span?.setStatus({ code: SpanStatusCode.ERROR });
      },
    },
    hashing: {
      task(pool, { queued, began, ended: done }) {
        const parent = context.active();
        const attributes = { 'accounts.hashing.pool': pool };
        tracer.startSpan('hashing wait', { startTime: queued, attributes }, parent).end(began);
        tracer
          .startSpan(pool === 'hashing' ? 'hashing' : 'password estimate', { startTime: began, attributes }, parent)
          .end(done);
      },
    },
    statements: {
      statement(text) {
        const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'sql';
        const span = tracer.startSpan(`sql ${verb}`, {
          kind: SpanKind.CLIENT,
          attributes: { 'db.system': 'postgresql', 'db.statement': text },
        });
        return (error) => ended(span, error);
      },
    },
    logFields() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: () => sdk.shutdown(),
  };
}
