// `pnpm --filter @accounts/bench run profile-hashing`: where the CPU of a registration and of a
// sign-in goes outside bcrypt. Starts the gateway's production build under `node --cpu-prof` (one
// profile per thread: the event loop, the hashing threads, the estimating thread) on a fresh
// database, warms it up, then sends BENCH_PROFILE_REQUESTS (default 300) registrations and as many
// sign-ins at the bench's hashing connections, each kind in a window of its own. Only the samples
// inside a window are counted (the profiles' clock is the system's monotonic clock), so start-up
// and warm-up are left out. Prints, per kind, the CPU per request of each thread and by code.
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
      const role = ['event loop', 'hashing', 'estimating'].includes(name) ? name : `thread ${tid} (${name})`;
      byName.set(role, (byName.get(role) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_US);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

buildGateway((line) => console.error(`profile: ${line}`));
const db = await freshDatabase(settings.databaseUrl, 'profile');
const windows: { kind: Kind; from: number; to: number; ok: number; cpu: Map<string, number> }[] = [];
try {
  const gateway = await startGateway(settings, db, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
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
    windows.shift(); // the first registrations warm the JIT and start the estimating thread
  } finally {
    await gateway.stop();
  }

  const profiles = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).map((f) => readProfile(join(dir, f)));
  console.log(`${db.kind}, bcrypt cost ${settings.cost}, ${settings.connections} connections; profiles in ${dir}`);
  for (const w of windows) {
    const perRequest = (us: number) => (us / w.ok).toFixed(0).padStart(7);
    const total = [...w.cpu.values()].reduce((a, b) => a + b, 0);
    const hashing = w.cpu.get('hashing') ?? 0;
    console.log(`\n${w.kind}: ${w.ok} × 2xx in ${((w.to - w.from) / 1e6).toFixed(1)} s; µs of CPU per request (/proc)`);
    for (const [role, us] of [...w.cpu].sort((a, b) => b[1] - a[1])) console.log(`  ${perRequest(us)}  ${role}`);
    console.log(
      `  ${perRequest(total - hashing)}  all but the hashing threads; bcrypt's share ${((100 * hashing) / total).toFixed(1)}%`,
    );
    // Where the event loop's time went (shares of its busy samples, scaled to its CPU time).
    const loop = profiles.find((p) => p.main);
    if (!loop) continue;
    const t = summariseSamples(loop, w.from, w.to);
    const scale = (w.cpu.get('event loop') ?? 0) / (t.busy || 1);
    console.log('  the event loop by code:');
    for (const [group, us] of t.groups)
      if ((us * scale) / w.ok >= 5) console.log(`    ${perRequest(us * scale)}  ${group}`);
    for (const [fn, us] of t.functions.slice(0, 12)) console.log(`    ${perRequest(us * scale)}    ${fn}`);
  }
} finally {
  await db.drop();
}
