import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import type { BenchReport } from '../src/report.js';

const benchDir = fileURLToPath(new URL('..', import.meta.url));
const base = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rm(base, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the whole benchmark runs in smoke mode and cleans up after itself', async () => {
  const work = join(base, 'tmp');
  const results = join(base, 'results');
  await mkdir(work);
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_SMOKE: '1', BENCH_RESULTS_DIR: results, TMPDIR: work };
  // The embedded database and the smoke defaults, whatever the caller's environment says.
  for (const key of [
    'DATABASE_URL',
    'BCRYPT_COST',
    'BENCH_SECONDS',
    'BENCH_CONNECTIONS',
    'BENCH_CAPACITY_SECONDS',
    'BENCH_RUNS',
    'BENCH_SESSION_CONNECTIONS',
  ])
    delete env[key];

  const bench = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: benchDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  bench.stdout.on('data', (d) => (output += d));
  bench.stderr.on('data', (d) => (output += d));
  const [code] = (await once(bench, 'exit')) as [number | null];
  expect(code, output).toBe(0);

  const report = JSON.parse(await readFile(join(results, 'smoke-pglite.json'), 'utf8')) as BenchReport;
  expect(report.meta.smoke).toBe(true);
  expect(report.runs).toHaveLength(1);
  const [run] = report.runs;
  // Before the first hashing scenario and after each of the six.
  expect(run!.capacities).toHaveLength(7);
  for (const c of run!.capacities) expect(c).toBeGreaterThan(0);
  expect(run!.scenarios.map((s) => `${s.server}: ${s.name}`)).toEqual([
    'gateway: registration',
    'gateway: registration, 2 × connections',
    'gateway: sign-in',
    'gateway: change password',
    'gateway: mix',
    'gateway: overload 5×',
    'gateway: GET /users/me (bearer)',
    'gateway: GET /users/me (cookie)',
    'gateway: signed-out page (/login, /register)',
    'gateway: static script file',
    'better-auth: registration',
    'better-auth: getSession (cookie)',
    'better-auth: overload 5×',
  ]);
  for (const s of run!.scenarios) {
    expect(s.offeredRps, s.name).toBeGreaterThan(0);
    expect(s.offeredRps, s.name).toBeGreaterThanOrEqual(s.rps);
    expect(s.latencyMs.p99, s.name).toBeGreaterThanOrEqual(s.latencyMs.p50);
    expect(s.healthzMs.samples, s.name).toBeGreaterThan(0);
    expect(s.eventLoopDelayMs.p99, s.name).toBeGreaterThanOrEqual(0);
    expect(s.rssPeakMB, s.name).toBeGreaterThan(0);
  }
  // Ours answer within the run (the peer's scrypt may not, in three seconds on a busy machine);
  // hashing scenarios are read against a capacity; session checks are all 2xx and hash nothing.
  for (const s of run!.scenarios.filter((s) => s.server === 'gateway')) expect(s.rps, s.name).toBeGreaterThan(0);
  for (const s of run!.scenarios.filter((s) => s.server === 'gateway').slice(0, 5))
    expect(s.capacityRatio, s.name).toBeGreaterThan(0);
  for (const s of run!.scenarios.filter((s) => /users\/me|getSession/.test(s.name))) {
    expect(s.rps, s.name).toBeGreaterThan(0);
    expect(Object.keys(s.statusCodes), s.name).toEqual(['200']);
    expect(s.bcryptOpsPerSecond, s.name).toBe(0);
  }
  // Signed-out pages and the page's own script, all answered, with the addresses they were.
  const [pages, file] = ['signed-out page (/login, /register)', 'static script file'].map((name) =>
    run!.scenarios.find((s) => s.name === name)!,
  );
  expect(pages!.paths).toEqual(['/login', '/register']);
  expect(file!.paths).toEqual([expect.stringMatching(/^\/assets\/index-[\w-]+\.js$/)]);
  for (const s of [pages!, file!]) {
    expect(s.rps, s.name).toBeGreaterThan(0);
    expect(Object.keys(s.statusCodes), s.name).toEqual(['200']);
    expect(s.bcryptOpsPerSecond, s.name).toBe(0);
    expect(s.capacity, s.name).toBeNull();
  }
  const pageTargets = report.targets.filter((t) => /signed-out page/.test(t.name));
  expect(pageTargets.map((t) => t.name)).toEqual([
    "signed-out page ≥ 0.5 × the same server's static script file (req/s, as a browser asks, 4 connections)",
    '/healthz p99 < 25 ms while signed-out pages load',
  ]);
  expect(pageTargets[0]!.measured).toMatch(/^\d+ vs \d+ req\/s: \d+\.\d\d×$/);
  expect(run!.scenarios.find((s) => s.name === 'change password')!.okByKind.changePassword).toBeGreaterThan(0);
  // Known and unknown emails were timed on both routes, and answered alike.
  expect(run!.enumeration.map((e) => e.name)).toEqual([
    'POST /users/login, wrong password',
    'POST /users/forgot_password',
  ]);
  for (const e of run!.enumeration) {
    const status = e.name.includes('login') ? 422 : 202;
    expect(e.statuses, e.name).toEqual({ known: { [status]: e.samples }, unknown: { [status]: e.samples } });
    expect(e.ratio, e.name).toBeGreaterThan(0);
  }
  expect(run!.memory.startFreshMB).toBeGreaterThan(0);
  expect(run!.memory.startExistingMB).toBeGreaterThan(0);
  expect(run!.memory.peakMB).toBeGreaterThan(0);
  expect(report.summary).toHaveLength(run!.scenarios.length);
  expect(report.targets.map((t) => t.name)).toContain('RSS peak ≤ 350 MB');
  for (const t of report.targets) expect(typeof t.pass).toBe('boolean');
  const md = await readFile(join(results, 'smoke-pglite.md'), 'utf8');
  expect(md).toContain('| target | measured | met |');
  expect(md).toContain(`Signed-out pages against \`${file!.paths![0]}\``);

  // Every server (the gateway twice, the peer) was stopped and the database directories removed.
  const pids = [...output.matchAll(/started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  expect(pids).toHaveLength(3);
  for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  expect((await readdir(work)).filter((f) => f.startsWith('accounts-bench-'))).toEqual([]);
});
