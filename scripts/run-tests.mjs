// The README's test command: runs every package's tests through turbo (the gateway's hardening
// tests as a task of their own, test:hardening; Lighthouse, test:lighthouse, last and alone:
// turbo.json), then prints one summary line over all of them ("N passed, N failed, N skipped").
// `--continue` runs every package even after one fails, so the line counts the whole suite.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reportDir = join(root, 'test-results', 'reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const run = spawnSync(
  join(root, 'node_modules', '.bin', 'turbo'),
  [
    'run',
    'test',
    'test:hardening',
    'test:lighthouse',
    '--continue',
    '--concurrency=2',
    '--log-order=grouped',
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TEST_REPORT_DIR: reportDir, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR },
  },
);

let passed = 0;
let failed = 0;
let skipped = 0;
const files = readdirSync(reportDir).filter((f) => f.endsWith('.json'));
for (const f of files) {
  const r = JSON.parse(readFileSync(join(reportDir, f), 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  console.log(`  ${f.replace(/\.json$/, '').padEnd(18)} ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
const ok = run.status === 0 && failed === 0 && passed > 0;
console.log(`\nTests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(ok ? 0 : run.status || 1);
