// `npm run bench`: measures the raw bcrypt capacity, then the gateway's production build and
// a better-auth peer under the same load, and writes results/latest-<database>.{json,md}.
import { availableParallelism, cpus, loadavg } from 'node:os';
import { measureCapacity } from './capacity.js';
import { freshDatabase, type FreshDatabase } from './databases.js';
import { buildGateway, startGateway, startPeer } from './launch.js';
import { capacityDrift, DRIFT_WARNING, evaluateTargets, toMarkdown, writeReport, type BenchReport } from './report.js';
import { gatewayScenarios, runScenario, warmUp, type ScenarioResult } from './scenarios.js';
import type { ServerUnderTest } from './servers.js';
import { loadSettings } from './settings.js';
import { betterAuth } from './traffic.js';

const settings = loadSettings();
const log = (line: string) => console.error(`bench: ${line}`);

/** Stops servers and drops databases still open when the run is interrupted. */
const open = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    log(`${signal}: cleaning up`);
    for (const dispose of [...open].reverse()) await dispose().catch(() => {});
    process.exit(130);
  });
}

async function using<T, R>(resource: Promise<T>, dispose: (r: T) => Promise<void>, body: (r: T) => Promise<R>): Promise<R> {
  const r = await resource;
  const disposer = () => dispose(r);
  open.add(disposer);
  try {
    return await body(r);
  } finally {
    open.delete(disposer);
    await dispose(r);
  }
}

/** Each server gets a fresh database of the run's kind, dropped once the server has stopped. */
const withServer = <R>(label: string, start: (db: FreshDatabase) => Promise<ServerUnderTest>, body: (s: ServerUnderTest, db: FreshDatabase) => Promise<R>) =>
  using(freshDatabase(settings.databaseUrl, label), (db) => db.drop(), (db) => using(start(db), (s) => s.stop(), (s) => body(s, db)));

/** The command as run, for the report (with any database password masked). */
function command(): string {
  const smoke = settings.smoke ? 'BENCH_SMOKE=1 ' : '';
  if (!settings.databaseUrl) return `${smoke}npm run bench`;
  const url = new URL(settings.databaseUrl);
  if (url.password) url.password = '***';
  return `DATABASE_URL=${url} ${smoke}npm run bench`;
}

const summary = (s: ScenarioResult) =>
  `${s.rps.toFixed(1)} 2xx/s (${s.capacityRatio.toFixed(2)} × capacity), p99 ${s.latencyMs.p99} ms, ` +
  `/healthz p99 ${s.healthzMs.p99.toFixed(1)} ms, loop delay p99 ${s.eventLoopDelayMs.p99.toFixed(1)} ms`;

async function capacityNow() {
  log(`raw capacity: bcrypt cost ${settings.cost} on ${settings.workers} threads for ${settings.capacitySeconds} s`);
  const c = await measureCapacity({ cost: settings.cost, workers: settings.workers, seconds: settings.capacitySeconds });
  log(`raw capacity: ${c.hashesPerSecond.toFixed(1)} hashes/s`);
  return c;
}

async function main() {
  const loadAverage = loadavg();
  if (loadAverage[0]! > 0.5) log(`the machine is busy (load average ${loadAverage[0]!.toFixed(2)}): figures will be lower and noisier than on a quiet one`);
  log('building the gateway if needed');
  buildGateway(log);

  const capacity = await capacityNow();
  const cap = capacity.hashesPerSecond;

  const { database, scenarios } = await withServer('gateway', (db) => startGateway(settings, db), async (gateway, db) => {
    log(`gateway on ${db.kind}: warming up`);
    await warmUp(gateway, settings);
    const results: ScenarioResult[] = [];
    for (const scenario of gatewayScenarios(settings, cap)) {
      log(`gateway: ${scenario.name} (${scenario.connections} connections${scenario.overallRate ? `, ${scenario.overallRate} req/s` : ''})`);
      results.push(await runScenario(gateway, scenario, settings, cap));
      log(`  ${summary(results.at(-1)!)}`);
    }
    return { database: db.kind, scenarios: results };
  });

  const peer = await withServer('peer', (db) => startPeer(settings, db), async (server, db) => {
    log(`better-auth on ${db.kind}: warming up`);
    await warmUp(server, settings, betterAuth);
    log(`better-auth: registration (${settings.connections} connections)`);
    const result = await runScenario(server, { name: 'registration', weights: { register: 1 }, connections: settings.connections, builders: betterAuth }, settings, cap);
    log(`  ${summary(result)}`);
    return result;
  });

  const capacityAfter = await capacityNow();
  const peerRatio = scenarios.find((s) => s.name === 'registration')!.rps / peer.rps;
  const report: BenchReport = {
    meta: {
      date: new Date().toISOString(),
      command: command(),
      node: process.version,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      loadAverage,
      database,
      peerDatabase: database,
      bcryptCost: settings.cost,
      workers: settings.workers,
      hashQueueMax: settings.queueMax,
      scenarioSeconds: settings.scenarioSeconds,
      healthzIntervalMs: settings.healthzIntervalMs,
      smoke: settings.smoke,
    },
    capacity,
    capacityAfter,
    scenarios,
    peer,
    peerRatio,
    targets: evaluateTargets(scenarios, peerRatio),
  };
  const files = await writeReport(settings.resultsDir, `${settings.smoke ? 'smoke' : 'latest'}-${database}`, report);
  console.log(toMarkdown(report));
  if (capacityDrift(report) > DRIFT_WARNING) log(`the capacity moved by more than ${DRIFT_WARNING * 100}% during the run: other work was using the CPU`);
  log(`wrote ${files.json} and ${files.md}`);
}

try {
  await main();
} catch (err) {
  console.error('bench failed:', err instanceof Error ? err.message : err, err instanceof Error && err.cause ? err.cause : '');
  process.exitCode = 1;
}
