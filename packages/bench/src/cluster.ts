// `npm run cluster` (in packages/bench, with DATABASE_URL): session checks and registrations
// through HAProxy (deploy/haproxy.cfg, unchanged) over one, two and three gateways, and straight
// at one gateway for comparison. On a machine of few cores the gateways share those cores: the
// figures show what the balancer costs, not how the service scales (docs/benchmarks.md).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freshDatabase } from './databases.js';
import { benchDir, buildGateway, startGateway } from './launch.js';
import { freePort, type ServerUnderTest } from './servers.js';
import { loadSettings } from './settings.js';
import { createAccounts, gateway, sessionChecks } from './traffic.js';

const log = (line: string) => console.error(`bench: ${line}`);
const settings = { ...loadSettings(), workers: 1, queueMax: 32 };
const databaseUrl = process.env.DATABASE_URL;
const seconds = Number(process.env.BENCH_CLUSTER_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CLUSTER_CONNECTIONS ?? 16);
const HAPROXY_CFG = join(benchDir, '..', '..', 'deploy', 'haproxy.cfg');

if (!databaseUrl) throw new Error('the cluster benchmark needs DATABASE_URL (a PostgreSQL server): gateways share it');
if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status !== 0) throw new Error('haproxy is not installed');

/** HAProxy from deploy/haproxy.cfg in front of `gateways`; resolves once it answers. */
async function startHaproxy(gateways: ServerUnderTest[]) {
  const port = await freePort();
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', LISTEN: `127.0.0.1:${port}` };
  gateways.forEach((g, i) => (env[`GATEWAY_${i + 1}`] = new URL(g.url).host));
  const child = spawn('haproxy', ['-f', HAPROXY_CFG], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 200) throw new Error('haproxy did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

interface Row {
  setup: string;
  load: 'session checks' | 'registrations';
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

async function measure(setup: string, url: string, tokens: string[]): Promise<Row[]> {
  const run = async (load: Row['load'], requests: autocannon.Request[]): Promise<Row> => {
    const r = await autocannon({ url, connections, duration: seconds, requests, timeout: 30 });
    const row = {
      setup,
      load,
      ok: r['2xx'],
      rps: r['2xx'] / seconds,
      p50: r.latency.p50,
      p99: r.latency.p99,
      failed: r.non2xx + r.errors + r.timeouts,
    };
    log(`${setup}, ${load}: ${row.rps.toFixed(0)} 2xx/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.failed} failed`);
    return row;
  };
  return [
    await run('session checks', sessionChecks('bearer', tokens)),
    await run('registrations', [{ setupRequest: (req) => ({ ...req, ...gateway.register() }) }]),
  ];
}

buildGateway(log);
const db = await freshDatabase(databaseUrl, 'cluster');
const gateways: ServerUnderTest[] = [];
const rows: Row[] = [];
try {
  // One at a time: the first applies the migrations.
  for (let i = 0; i < 3; i++) gateways.push(await startGateway(settings, db));
  const tokens = (await createAccounts(gateways[0]!.url, 200, 8)).map((a) => a.token);
  // A warm-up, not measured: the password estimator's dictionaries, the session caches.
  await autocannon({ url: gateways[0]!.url, connections: 4, duration: 2, requests: sessionChecks('bearer', tokens) });
  rows.push(...(await measure('one gateway, no balancer', gateways[0]!.url, tokens)));
  for (const n of [1, 2, 3]) {
    const balancer = await startHaproxy(gateways.slice(0, n));
    try {
      rows.push(...(await measure(`HAProxy, ${n} gateway${n > 1 ? 's' : ''}`, balancer.url, tokens)));
    } finally {
      await balancer.stop();
    }
  }
} finally {
  for (const g of gateways) await g.stop();
  await db.drop();
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  `Cluster benchmark, ${new Date().toISOString().slice(0, 10)}: ${availableParallelism()} cores (${cpu}), PostgreSQL,`,
  `bcrypt cost ${settings.cost}, 1 hashing thread per gateway, ${connections} connections, ${seconds} s per row.`,
  '',
  '| setup | load | 2xx/s | p50 ms | p99 ms | failed |',
  '|---|---|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.setup} | ${r.load} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.failed} |`),
];
writeFileSync(join(benchDir, 'results', 'latest-cluster.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
