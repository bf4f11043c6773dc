import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface Settings {
  /** A seconds-long run for the test suite: low cost, few connections. */
  smoke: boolean;
  cost: number;
  /** Hashing threads, as the gateway's HASH_WORKERS: one per core unless set. */
  workers: number;
  /** The gateway's hashing queue bound (its HASH_QUEUE_MAX default: workers × 32). */
  queueMax: number;
  /** A PostgreSQL server on which private databases are created; unset: embedded PGlite. */
  databaseUrl?: string;
  capacitySeconds: number;
  warmupSeconds: number;
  scenarioSeconds: number;
  /** Connections of the saturating scenarios. */
  connections: number;
  /** Connections of the session checks (GET /users/me and its peers). */
  sessionConnections: number;
  /** Signed-in accounts the session checks go round. */
  sessionAccounts: number;
  /** Requests per kind (known, unknown email) and route of the enumeration timing. */
  enumerationSamples: number;
  /** Whole runs (fresh servers and databases each time); the report gives their medians. */
  runs: number;
  /** Upper bound on the overload's connections (it scales with capacity). */
  maxConnections: number;
  healthzIntervalMs: number;
  resultsDir: string;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export function loadSettings(): Settings {
  const smoke = process.env.BENCH_SMOKE === '1';
  const workers = Math.round(positive('HASH_WORKERS', Math.max(1, availableParallelism())));
  return {
    smoke,
    cost: Math.round(positive('BCRYPT_COST', smoke ? 4 : 10)),
    workers,
    queueMax: Math.round(positive('HASH_QUEUE_MAX', workers * 32)),
    databaseUrl: process.env.DATABASE_URL || undefined,
    capacitySeconds: positive('BENCH_CAPACITY_SECONDS', smoke ? 0.25 : 5),
    warmupSeconds: smoke ? 0.25 : 3,
    scenarioSeconds: positive('BENCH_SECONDS', smoke ? 1 : 10),
    connections: Math.round(positive('BENCH_CONNECTIONS', smoke ? 4 : workers * 4)),
    sessionConnections: Math.round(positive('BENCH_SESSION_CONNECTIONS', smoke ? 4 : 32)),
    sessionAccounts: smoke ? 4 : 64,
    enumerationSamples: smoke ? 4 : 60,
    runs: Math.round(positive('BENCH_RUNS', smoke ? 1 : 3)),
    maxConnections: smoke ? 64 : 1000,
    healthzIntervalMs: 20,
    resultsDir: process.env.BENCH_RESULTS_DIR || fileURLToPath(new URL('../results', import.meta.url)),
  };
}
