import type autocannon from 'autocannon';
import { runLoad, type HealthzStats } from './load.js';
import { browserRequests, PAGE_SCENARIO, pageScript, SIGNED_OUT_PAGES, STATIC_SCENARIO } from './pages.js';
import type { ServerUnderTest } from './servers.js';
import type { Settings } from './settings.js';
import {
  createAccounts,
  HASHES_PER_REQUEST,
  mixedRequests,
  sessionChecks,
  type Kind,
  type SessionStyle,
} from './traffic.js';

export interface Scenario {
  name: string;
  connections: number;
  overallRate?: number;
  /** Requests that hash, as kinds in a repeating cycle, e.g. { signIn: 6, register: 3 }. */
  weights?: Partial<Record<Kind, number>>;
  /** Accounts made before the run for sign-ins, and for changes of password. */
  signInAccounts?: number;
  changeAccounts?: number;
  /** Builds registrations for another API (the peer). */
  builders?: { register(): Pick<autocannon.Request, 'method' | 'path' | 'headers' | 'body'> };
  /** Or session checks (no hashing), going round these credentials. */
  sessions?: { style: SessionStyle; credentials: string[] };
  /** Or GETs as a browser sends them, no cookie (no hashing), going round these paths. */
  browser?: { paths: readonly string[] };
}

export interface ScenarioResult {
  name: string;
  server: string;
  connections: number;
  overallRate: number | null;
  /** The addresses asked for, for a browser's GETs. */
  paths?: readonly string[];
  seconds: number;
  /** Requests sent per second. */
  offeredRps: number;
  /** 2xx answers per second. */
  rps: number;
  /** bcrypt operations behind those answers, per second (a change of password costs two). */
  bcryptOpsPerSecond: number;
  /** The raw capacity the scenario is read against: the lower of the measurements before and after it. */
  capacity: number | null;
  /** bcryptOpsPerSecond / capacity: for a change of password, its rate against half the capacity. */
  capacityRatio: number;
  offeredRatio: number;
  okByKind: Record<Kind, number>;
  latencyMs: { p50: number; p99: number; max: number };
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  healthzMs: HealthzStats;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  rssPeakMB: number;
  /** RSS once the server has gone quiet after the run. */
  rssSettledMB: number;
}

/** The registration scenario at twice the connections (8 and 16 on two cores). */
export const REGISTRATION_DOUBLE = 'registration, 2 × connections';

/** Connections of the 5× overload: see docs/benchmarks.md. */
export function overloadConnections(s: Settings, capacity: number) {
  // Each accepted request holds its connection while it waits in the hashing queue, so the
  // overload has as many connections again as the queue holds; each sends one request a
  // second (more when capped), which offers ≈ 5 × capacity in all.
  const connections = Math.min(s.maxConnections, Math.round(4 * capacity + s.queueMax + s.workers));
  return { connections, overallRate: Math.max(connections, Math.round(5 * capacity)) };
}

/** The gateway's hashing scenarios; the overload offers about five times what the hashing can do. */
export function hashingScenarios(s: Settings, capacity: number): Scenario[] {
  const c = s.connections;
  return [
    { name: 'registration', weights: { register: 1 }, connections: c },
    // Twice the connections: more requests waiting in the hashing queue must not cost throughput.
    { name: REGISTRATION_DOUBLE, weights: { register: 1 }, connections: c * 2 },
    { name: 'sign-in', weights: { signIn: 1 }, connections: c, signInAccounts: c * 2 },
    { name: 'change password', weights: { changePassword: 1 }, connections: c, changeAccounts: c * 2 },
    {
      name: 'mix',
      weights: { signIn: 6, register: 3, changePassword: 1 },
      connections: c,
      signInAccounts: c * 2,
      changeAccounts: c * 2,
    },
    { name: 'overload 5×', weights: { register: 1 }, ...overloadConnections(s, capacity) },
  ];
}

/**
 * Signed-out pages against the same server's page script, a file sent as it is from disk: what a
 * page costs beyond the server's cheapest answer, both asked for as a browser asks.
 */
export async function pageScenarios(server: ServerUnderTest, s: Settings): Promise<Scenario[]> {
  const script = await pageScript(server.url);
  return [
    { name: PAGE_SCENARIO, connections: s.sessionConnections, browser: { paths: SIGNED_OUT_PAGES } },
    { name: STATIC_SCENARIO, connections: s.sessionConnections, browser: { paths: [script] } },
  ];
}

/** Makes the scenario's accounts, runs its load, and reads the outcome (against `capacity` for now). */
export async function runScenario(
  server: ServerUnderTest,
  scenario: Scenario,
  s: Settings,
  capacity: number | null,
): Promise<ScenarioResult> {
  const make = (n = 0) => (n ? createAccounts(server.url, n, s.workers * 2) : Promise.resolve([]));
  const signIn = await make(scenario.signInAccounts);
  const changePassword = await make(scenario.changeAccounts);
  await server.settle();

  const hashes = !scenario.sessions && !scenario.browser;
  const mixed = !hashes
    ? null
    : mixedRequests({
        weights: scenario.weights ?? { register: 1 },
        signIn,
        changePassword,
        builders: scenario.builders,
      });
  const requests = mixed
    ? mixed.requests
    : scenario.sessions
      ? sessionChecks(scenario.sessions.style, scenario.sessions.credentials)
      : browserRequests(scenario.browser!.paths);
  const {
    result,
    seconds,
    healthz,
    server: probe,
  } = await runLoad(
    server,
    { connections: scenario.connections, overallRate: scenario.overallRate, seconds: s.scenarioSeconds, requests },
    s.healthzIntervalMs,
  );
  const settled = await server.settle();

  const okByKind = mixed?.counts.ok ?? { register: 0, signIn: 0, changePassword: 0 };
  const bcryptOps =
    (Object.keys(okByKind) as Kind[]).reduce((sum, k) => sum + okByKind[k] * HASHES_PER_REQUEST[k], 0) / seconds;
  const sent = mixed ? mixed.counts.sent : result.requests.sent;
  const outcome: ScenarioResult = {
    name: scenario.name,
    server: server.name,
    connections: scenario.connections,
    overallRate: scenario.overallRate ?? null,
    ...(scenario.browser && { paths: scenario.browser.paths }),
    seconds,
    offeredRps: sent / seconds,
    rps: result['2xx'] / seconds,
    bcryptOpsPerSecond: bcryptOps,
    capacity: null,
    capacityRatio: 0,
    offeredRatio: 0,
    okByKind,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count ?? 0]),
    ),
    errors: result.errors,
    timeouts: result.timeouts,
    healthzMs: healthz,
    eventLoopDelayMs: probe.eventLoopDelayMs,
    rssPeakMB: probe.rssPeakMB,
    rssSettledMB: settled.rssMB,
  };
  return capacity === null || !hashes ? outcome : readAgainst(outcome, capacity);
}

/** Reads a hashing scenario against a capacity (the lower of those measured around it). */
export function readAgainst(r: ScenarioResult, capacity: number): ScenarioResult {
  return { ...r, capacity, capacityRatio: r.bcryptOpsPerSecond / capacity, offeredRatio: r.offeredRps / capacity };
}

/**
 * Unmeasured load of each page scenario first, as the hashing scenarios get theirs: the first
 * renders (the page modules' first import, a cold JIT) are a start's cost, not a page's.
 */
export async function warmUpPages(server: ServerUnderTest, scenarios: Scenario[], s: Settings) {
  for (const { connections, browser } of scenarios) {
    const requests = browserRequests(browser!.paths);
    await runLoad(server, { connections, seconds: s.warmupSeconds, requests }, s.healthzIntervalMs);
  }
  await server.settle();
}

/** Unmeasured load before the first scenario, so the JIT and the pools are warm. */
export async function warmUp(server: ServerUnderTest, s: Settings, builders?: Scenario['builders']) {
  const { requests } = mixedRequests({ weights: { register: 1 }, builders });
  await runLoad(server, { connections: s.connections, seconds: s.warmupSeconds, requests }, s.healthzIntervalMs);
  await server.settle();
}
