// `npm run session-check` (in packages/bench): GET /users/me, the hot path, on one gateway with
// metrics and traces off, with METRICS_PORT set, and with traces sent to a collector that accepts
// and drops them; rounds alternate so a busy machine's drift falls on all three alike.
// BENCH_GATEWAY_MAIN runs another build (an older release's apps/gateway/dist/main.js) as "off".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freshDatabase } from './databases.js';
import { benchDir, buildGateway } from './launch.js';
import { freePort, startServer } from './servers.js';
import { createAccounts, sessionChecks } from './traffic.js';

const log = (line: string) => console.error(`bench: ${line}`);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const main = process.env.BENCH_GATEWAY_MAIN ?? join(benchDir, '..', '..', 'apps', 'gateway', 'dist', 'main.js');
const current = join(benchDir, '..', '..', 'apps', 'gateway', 'dist', 'main.js');

// A collector that takes the spans and drops them: what traces cost the gateway, not a collector.
const sink = createServer((req, res) => {
  req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const collector = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const setups: { name: string; entry: string; env: () => Promise<Record<string, string>> }[] = [
  {
    name: process.env.BENCH_GATEWAY_MAIN ? 'before (the given build)' : 'off',
    entry: main,
    env: () => Promise.resolve({}),
  },
  { name: 'metrics on', entry: current, env: async () => ({ METRICS_PORT: String(await freePort()) }) },
  { name: 'traces on', entry: current, env: () => Promise.resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: collector }) },
];
if (process.env.BENCH_GATEWAY_MAIN)
  setups.splice(1, 0, { name: 'off', entry: current, env: () => Promise.resolve({}) });

buildGateway(log);
const results = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const setup of setups) {
    const db = await freshDatabase(process.env.DATABASE_URL, 'hot');
    const port = await freePort();
    const server = await startServer({
      name: setup.name,
      entry: setup.entry,
      port,
      env: {
        PATH: process.env.PATH,
        ...db.env,
        ...(await setup.env()),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        MAIL_TRANSPORT: 'log',
        BCRYPT_COST: '4',
        HASH_WORKERS: '1',
        // All load comes from one address.
        RATE_LIMIT_REGISTER: '0',
        PASSWORD_PEPPER: 'benchmark-pepper-for-a-throwaway-database-0123456789',
      },
    });
    try {
      const tokens = (await createAccounts(server.url, 20, 4)).map((a) => a.token);
      await autocannon({ url: server.url, connections: 8, duration: 2, requests: sessionChecks('bearer', tokens) });
      const r = await autocannon({
        url: server.url,
        connections: 8,
        duration: seconds,
        requests: sessionChecks('bearer', tokens),
      });
      const rps = r['2xx'] / seconds;
      log(`round ${round + 1}, ${setup.name}: ${rps.toFixed(0)} 2xx/s, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx`);
      results.set(setup.name, [...(results.get(setup.name) ?? []), rps]);
    } finally {
      await server.stop();
      await db.drop();
    }
  }
}
sink.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `GET /users/me, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)} at the end, ` +
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, 8 connections, ${seconds} s × ${rounds} rounds (median 2xx/s):`,
);
for (const [name, rps] of results)
  console.log(`  ${name}: ${median(rps).toFixed(0)} (${rps.map((x) => x.toFixed(0)).join(', ')})`);
