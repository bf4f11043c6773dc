// `pnpm --filter @accounts/bench run profile-hashing`: where the CPU of a registration and of a
// sign-in goes outside bcrypt. Starts the gateway's production build twice on a fresh database,
// warms it up, then sends BENCH_PROFILE_REQUESTS (default 300) registrations and as many sign-ins
// at the bench's hashing connections, each kind in a window of its own. The first start reads each
// thread's CPU time from /proc around the windows (the hashing worker names its threads); the
// second runs under `node --cpu-prof` and breaks the event loop's time down by code, counting only
// the samples inside each window (the profiles' clock is the system's monotonic clock).
import { readdirSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { readProfile, summariseSamples } from './cpu-profile.js';
import { freshDatabase } from './databases.js';
import { buildGateway, startGateway } from './launch.js';
import { loadSettings } from './settings.js';
import { createAccounts, mixedRequests, type Kind } from './traffic.js';

const settings = loadSettings();
const requests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 300);
const dir = join(settings.resultsDir, 'profiles', `hashing-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);
const TICK_US = 10_000; // Linux's USER_HZ (100 a second), the unit of /proc's CPU times

/** CPU time so far (µs) of each thread of a process, by the thread's name (the hashing worker names its own). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = Number(tid) === pid ? 'event loop' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      // utime and stime are the 14th and 15th fields; the name in brackets may hold spaces.
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const role = ['event loop', 'hashing', 'estimating'].includes(name) ? name : 'V8 and libuv threads';
      byName.set(role, (byName.get(role) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_US);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

interface Window {
  kind: Kind;
  from: number;
  to: number;
  ok: number;
  cpu: Map<string, number>;
}

/** One gateway on a new database: its windows of registrations and sign-ins, after a warm-up. */
async function measure(nodeArgs: string[]): Promise<Window[]> {
  const db = await freshDatabase(settings.databaseUrl, 'profile');
  try {
    const gateway = await startGateway(settings, db, nodeArgs);
    const windows: Window[] = [];
    try {
      const signIn = await createAccounts(gateway.url, settings.connections * 2, settings.workers * 2);
      for (const kind of ['register', 'register', 'signIn'] as const) {
        const load = mixedRequests({ weights: { [kind]: 1 }, signIn });
        const before = threadCpu(gateway.pid);
        const from = monotonicMicros();
        await autocannon({
          url: gateway.url,
          connections: settings.connections,
          amount: requests,
          requests: load.requests,
        });
        const to = monotonicMicros();
        const cpu = new Map([...threadCpu(gateway.pid)].map(([role, us]) => [role, us - (before.get(role) ?? 0)]));
        windows.push({ kind, from, to, ok: load.counts.ok[kind], cpu });
      }
    } finally {
      await gateway.stop();
    }
    return windows.slice(1); // the first registrations warm the JIT and start the estimating thread
  } finally {
    await db.drop();
  }
}

buildGateway((line) => console.error(`profile: ${line}`));
// CPU per thread without the profiler (its sampling costs CPU of its own), then the event loop's
// breakdown with it, scaled to the first pass's time.
const plain = await measure([]);
const profiled = await measure(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const loop = (await readdir(dir))
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => readProfile(join(dir, f)))
  .find((p) => p.main);
console.log(
  `${settings.databaseUrl ? 'postgres' : 'pglite'}, bcrypt cost ${settings.cost}, ${settings.connections} connections; profiles in ${dir}`,
);
plain.forEach((w, n) => {
  const perRequest = (us: number) => (us / w.ok).toFixed(0).padStart(7);
  const total = [...w.cpu.values()].reduce((a, b) => a + b, 0);
  const hashing = w.cpu.get('hashing') ?? 0;
  console.log(`\n${w.kind}: ${w.ok} × 2xx in ${((w.to - w.from) / 1e6).toFixed(1)} s; µs of CPU per request (/proc)`);
  for (const [role, us] of [...w.cpu].sort((a, b) => b[1] - a[1])) console.log(`  ${perRequest(us)}  ${role}`);
  console.log(
    `  ${perRequest(total - hashing)}  all but the hashing threads; the hashing threads' share ${((100 * hashing) / total).toFixed(1)}%`,
  );
  const p = profiled[n];
  if (!loop || !p) return;
  const t = summariseSamples(loop, p.from, p.to);
  const scale = (w.cpu.get('event loop') ?? 0) / w.ok / ((t.busy || 1) / p.ok);
  console.log('  the event loop by code (profiled run, scaled):');
  for (const [group, us] of t.groups)
    if ((us * scale) / p.ok >= 5) console.log(`    ${((us * scale) / p.ok).toFixed(0).padStart(7)}  ${group}`);
  for (const [fn, us] of t.functions.slice(0, 10))
    console.log(`    ${((us * scale) / p.ok).toFixed(0).padStart(7)}    ${fn}`);
});
