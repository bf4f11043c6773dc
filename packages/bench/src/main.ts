// `npm run bench`: the gateway's production build, a floor server (PostgreSQL) and a better-auth
// peer under the same load, each run on fresh databases; the raw bcrypt capacity is measured
// around every hashing scenario. Writes results/latest-<database>.{json,md}.
import { availableParallelism, cpus, loadavg } from 'node:os';
import { browserTargets } from './browser-figures.js';
import { measureCapacity } from './capacity.js';
import { freshDatabase, type DatabaseKind, type FreshDatabase } from './databases.js';
import { measureEnumeration, type EnumerationTiming } from './enumeration.js';
import { buildGateway, startFloor, startGateway, startPeer } from './launch.js';
import {
  evaluateTargets,
  spread,
  summarise,
  toMarkdown,
  writeReport,
  type BenchReport,
  type RunResult,
} from './report.js';
import {
  hashingScenarios,
  overloadConnections,
  pageScenarios,
  readAgainst,
  runScenario,
  warmUp,
  warmUpPages,
  type ScenarioResult,
} from './scenarios.js';
import type { ServerUnderTest } from './servers.js';
import { loadSettings } from './settings.js';
import { betterAuth, createAccounts, createPeerSessions } from './traffic.js';

const settings = loadSettings();
const log = (line: string) => console.error(`bench: ${line}`);

/** Stops servers and drops databases still open when the run is interrupted. */
const open = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  const cleanUp = async () => {
    log(`${signal}: cleaning up`);
    for (const dispose of [...open].reverse()) await dispose().catch(() => {});
    process.exit(130);
  };
  process.once(signal, () => void cleanUp());
}

async function using<T, R>(
  resource: Promise<T>,
  dispose: (r: T) => Promise<void>,
  body: (r: T) => Promise<R>,
): Promise<R> {
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

const withDatabase = <R>(label: string, body: (db: FreshDatabase) => Promise<R>) =>
  using(freshDatabase(settings.databaseUrl, label), (db) => db.drop(), body);
const withServer = <R>(start: Promise<ServerUnderTest>, body: (s: ServerUnderTest) => Promise<R>) =>
  using(start, (s) => s.stop(), body);

/** The command as run, for the report (with any database password masked). */
function command(): string {
  const smoke = settings.smoke ? 'BENCH_SMOKE=1 ' : '';
  if (!settings.databaseUrl) return `${smoke}npm run bench`;
  const url = new URL(settings.databaseUrl);
  if (url.password) url.password = '***';
  return `DATABASE_URL=${url.href} ${smoke}npm run bench`;
}

const summary = (s: ScenarioResult) =>
  `${s.rps.toFixed(1)} 2xx/s${s.capacity === null ? '' : ` (${s.capacityRatio.toFixed(2)} × capacity)`}, p99 ${s.latencyMs.p99} ms, ` +
  `/healthz p99 ${s.healthzMs.p99.toFixed(1)} ms, loop delay p99 ${s.eventLoopDelayMs.p99.toFixed(1)} ms`;

async function capacityNow() {
  const c = await measureCapacity({
    cost: settings.cost,
    workers: settings.workers,
    seconds: settings.capacitySeconds,
  });
  log(
    `raw capacity: ${c.hashesPerSecond.toFixed(1)} hashes/s (bcrypt cost ${settings.cost}, ${settings.workers} threads)`,
  );
  return c.hashesPerSecond;
}

async function run(index: number): Promise<{ kind: DatabaseKind; result: RunResult }> {
  const before = loadavg();
  const date = new Date().toISOString();
  log(`run ${index + 1} of ${settings.runs} (load average ${before.map((l) => l.toFixed(2)).join(' ')})`);
  const capacities = [await capacityNow()];
  const scenarios: ScenarioResult[] = [];
  let enumeration: EnumerationTiming[] = [];
  const record = (r: ScenarioResult) => {
    scenarios.push(r);
    log(`  ${r.server}: ${r.name}: ${summary(r)}`);
  };

  const { kind, memory } = await withDatabase('gateway', async (db) => {
    const startFreshMB = await withServer(startGateway(settings, db), async (gateway) => {
      const fresh = (await gateway.settle()).rssMB;
      log(`gateway on ${db.kind}: ${fresh.toFixed(0)} MB after start on a new database; warming up`);
      // The first new password starts the thread that estimates passwords (once, about half a
      // second on a quiet machine, far longer on a busy one): awaited so no scenario waits for it.
      const [probeAccount] = await createAccounts(gateway.url, 1, 1);
      await warmUp(gateway, settings);
      enumeration = await measureEnumeration(gateway.url, probeAccount!, settings.enumerationSamples);
      for (const e of enumeration)
        log(
          `  gateway: ${e.name}: known ${e.knownMs.median.toFixed(1)} ms, unknown ${e.unknownMs.median.toFixed(1)} ms (median of ${e.samples}): ${e.ratio.toFixed(2)}×`,
        );
      for (const scenario of hashingScenarios(settings, capacities[0]!)) {
        log(
          `gateway: ${scenario.name} (${scenario.connections} connections${scenario.overallRate ? `, ${scenario.overallRate} req/s` : ''})`,
        );
        const result = await runScenario(gateway, scenario, settings, null);
        capacities.push(await capacityNow());
        record(readAgainst(result, Math.min(capacities.at(-2)!, capacities.at(-1)!)));
      }
      // Session checks: no hashing, so the event loop and the database are all that is measured.
      const tokens = (await createAccounts(gateway.url, settings.sessionAccounts, settings.workers * 2)).map(
        (a) => a.token,
      );
      for (const style of ['bearer', 'cookie'] as const) {
        record(
          await runScenario(
            gateway,
            {
              name: `GET /users/me (${style})`,
              connections: settings.sessionConnections,
              sessions: { style, credentials: tokens },
            },
            settings,
            null,
          ),
        );
      }
      // Signed-out pages and the static file they are compared with, in turn on the same server.
      const pageLoads = await pageScenarios(gateway, settings);
      await warmUpPages(gateway, pageLoads, settings);
      for (const scenario of pageLoads) record(await runScenario(gateway, scenario, settings, null));
      if (db.kind === 'postgres') {
        await withServer(startFloor(db), async (floor) => {
          record(
            await runScenario(
              floor,
              {
                name: 'GET /users/me (bearer)',
                connections: settings.sessionConnections,
                sessions: { style: 'bearer', credentials: tokens },
              },
              settings,
              null,
            ),
          );
        });
      }
      return fresh;
    });
    // The same database again, as after a restart.
    const startExistingMB = await withServer(
      startGateway(settings, db),
      async (gateway) => (await gateway.settle()).rssMB,
    );
    log(`gateway: ${startExistingMB.toFixed(0)} MB after a restart on the same database`);
    const peakMB = Math.max(...scenarios.filter((s) => s.server === 'gateway').map((s) => s.rssPeakMB));
    return { kind: db.kind, memory: { startFreshMB, startExistingMB, peakMB } };
  });

  await withDatabase('peer', (db) =>
    withServer(startPeer(db), async (peer) => {
      log(`better-auth on ${db.kind}: warming up`);
      await warmUp(peer, settings, betterAuth(peer.url));
      record(
        await runScenario(
          peer,
          {
            name: 'registration',
            weights: { register: 1 },
            connections: settings.connections,
            builders: betterAuth(peer.url),
          },
          settings,
          null,
        ),
      );
      const cookies = await createPeerSessions(peer.url, settings.sessionAccounts, settings.workers * 2);
      record(
        await runScenario(
          peer,
          {
            name: 'getSession (cookie)',
            connections: settings.sessionConnections,
            sessions: { style: 'better-auth', credentials: cookies },
          },
          settings,
          null,
        ),
      );
      record(
        await runScenario(
          peer,
          {
            name: 'overload 5×',
            weights: { register: 1 },
            builders: betterAuth(peer.url),
            ...overloadConnections(settings, capacities[0]!),
          },
          settings,
          null,
        ),
      );
    }),
  );
  return {
    kind,
    result: { date, loadAverage: { before, after: loadavg() }, capacities, scenarios, enumeration, memory },
  };
}

async function main() {
  log('building the gateway if needed');
  buildGateway(log);
  const runs: RunResult[] = [];
  let database: DatabaseKind = 'pglite';
  for (let i = 0; i < settings.runs; i++) {
    const { kind, result } = await run(i);
    database = kind;
    runs.push(result);
    // Written after every run, so an interrupted benchmark keeps the runs it completed.
    const files = await writeReport(
      settings.resultsDir,
      `${settings.smoke ? 'smoke' : 'latest'}-${database}`,
      report(database, runs),
    );
    log(`run ${i + 1} done: wrote ${files.json} and ${files.md}`);
  }
  console.log(toMarkdown(report(database, runs)));
}

function report(database: DatabaseKind, runs: RunResult[]): BenchReport {
  const rows = summarise(runs);
  const memory = {
    startFreshMB: spread(runs.map((r) => r.memory.startFreshMB)),
    startExistingMB: spread(runs.map((r) => r.memory.startExistingMB)),
    peakMB: spread(runs.map((r) => r.memory.peakMB)),
  };
  return {
    meta: {
      date: runs[0]!.date,
      command: command(),
      node: process.version,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      database,
      bcryptCost: settings.cost,
      workers: settings.workers,
      hashQueueMax: settings.queueMax,
      scenarioSeconds: settings.scenarioSeconds,
      capacitySeconds: settings.capacitySeconds,
      sessionConnections: settings.sessionConnections,
      healthzIntervalMs: settings.healthzIntervalMs,
      smoke: settings.smoke,
    },
    runs,
    summary: rows,
    memory,
    targets: [...evaluateTargets(database, runs, rows, memory), ...browserTargets()],
  };
}

try {
  await main();
} catch (err) {
  console.error(
    'bench failed:',
    err instanceof Error ? err.message : err,
    err instanceof Error && err.cause ? err.cause : '',
  );
  process.exitCode = 1;
}
