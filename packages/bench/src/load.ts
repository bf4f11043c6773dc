import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import type { ProbeStats } from './probe-types.js';
import type { ServerUnderTest } from './servers.js';

export interface HealthzStats {
  samples: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadSpec {
  connections: number;
  /** Requests per second over all connections; unset: each connection sends as fast as answered. */
  overallRate?: number;
  seconds: number;
  requests: autocannon.Request[];
}

export interface LoadOutcome {
  result: autocannon.Result;
  /** From the first request to the last answer. */
  seconds: number;
  healthz: HealthzStats;
  server: ProbeStats;
}

const PROBER = new URL('./workers/healthz-prober.js', import.meta.url);

// autocannon merges runs made with skipAggregateResult; its typings lack the function.
const aggregate = (
  autocannon as unknown as { aggregateResult: (results: unknown[], opts: object) => autocannon.Result }
).aggregateResult;

// A rate-limited autocannon connection sends its share of each second at the top of the
// second, all connections together. Several runs started apart spread those bursts out.
const STAGGERED_RUNS = 20;

/** n split into k near-equal whole parts. */
const split = (n: number, k: number) => Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));

/**
 * Drives `server` with autocannon while probing its /healthz from another thread; the
 * server's own probe window covers exactly the run.
 */
export async function runLoad(
  server: ServerUnderTest,
  spec: LoadSpec,
  healthzIntervalMs: number,
): Promise<LoadOutcome> {
  const runs = spec.overallRate ? Math.min(STAGGERED_RUNS, spec.connections) : 1;
  const gapMs = 1000 / runs;
  await server.reset();
  const prober = new Worker(PROBER, {
    workerData: {
      url: `${server.url}/healthz`,
      intervalMs: healthzIntervalMs,
      durationMs: spec.seconds * 1000 + (runs - 1) * gapMs,
    },
  });
  const healthz = once(prober, 'message') as Promise<[HealthzStats]>;
  const started = performance.now();
  const connections = split(spec.connections, runs);
  const rates = spec.overallRate ? split(spec.overallRate, runs) : [];
  const results = await Promise.all(
    connections.map(async (n, i) => {
      await sleep(i * gapMs);
      return autocannon({
        url: server.url,
        connections: n,
        overallRate: rates[i],
        duration: spec.seconds,
        requests: spec.requests,
        // Accepted requests wait behind the whole hashing queue under overload.
        timeout: 30,
        skipAggregateResult: true,
      });
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [stats] = await healthz;
  await prober.terminate();
  return {
    result: aggregate(results, { url: server.url, connections: spec.connections }),
    seconds,
    healthz: stats,
    server: await server.report(),
  };
}
