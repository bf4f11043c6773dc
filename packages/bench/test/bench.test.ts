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
  for (const key of ['DATABASE_URL', 'BCRYPT_COST', 'BENCH_SECONDS', 'BENCH_CONNECTIONS', 'BENCH_CAPACITY_SECONDS']) delete env[key];

  const bench = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: benchDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  bench.stdout.on('data', (d) => (output += d));
  bench.stderr.on('data', (d) => (output += d));
  const [code] = await once(bench, 'exit');
  expect(code, output).toBe(0);

  const report = JSON.parse(await readFile(join(results, 'smoke-pglite.json'), 'utf8')) as BenchReport;
  expect(report.meta.smoke).toBe(true);
  expect(report.capacity.hashesPerSecond).toBeGreaterThan(0);
  expect(report.scenarios.map((s) => s.name)).toEqual(['registration', 'sign-in', 'change password', 'mix', 'overload 5×']);
  for (const s of [...report.scenarios, report.peer]) {
    expect(s.rps, s.name).toBeGreaterThan(0);
    expect(s.capacityRatio, s.name).toBeGreaterThan(0);
    expect(s.offeredRps, s.name).toBeGreaterThanOrEqual(s.rps);
    expect(Object.values(s.statusCodes).reduce((a, b) => a + b, 0), s.name).toBeGreaterThan(0);
    expect(s.latencyMs.p99, s.name).toBeGreaterThanOrEqual(s.latencyMs.p50);
    expect(s.healthzMs.samples, s.name).toBeGreaterThan(0);
    expect(s.eventLoopDelayMs.p99, s.name).toBeGreaterThanOrEqual(0);
    expect(s.rssPeakMB, s.name).toBeGreaterThan(0);
  }
  expect(report.scenarios.find((s) => s.name === 'change password')!.okByKind.changePassword).toBeGreaterThan(0);
  expect(report.peerRatio).toBeGreaterThan(0);
  expect(report.targets).toHaveLength(8);
  for (const t of report.targets) expect(typeof t.pass).toBe('boolean');
  expect(await readFile(join(results, 'smoke-pglite.md'), 'utf8')).toContain('| target | measured | met |');

  // Both servers were stopped and their database directories removed.
  const pids = [...output.matchAll(/started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  expect((await readdir(work)).filter((f) => f.startsWith('accounts-bench-'))).toEqual([]);
});
