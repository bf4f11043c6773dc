import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The processes these tests start run the build (dist/), as an operator does: starting from
// TypeScript cost each one about 3 s of CPU for tsx. `npm test` builds first (turbo.json); a run
// of vitest alone after an edit rebuilds here, so no test ever runs an older build than the source.
const GATEWAY = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = [
  'apps/gateway/src',
  'packages/api/src',
  'packages/db/src',
  'packages/db/migrations',
  'packages/validators/src',
];
const BUILT = ['dist/main.js', 'dist/cli.js'].map((f) => join(GATEWAY, f));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup() {
  const source = Math.max(...SOURCES.map((dir) => newestMtime(join(GATEWAY, '../..', dir))));
  const fresh = BUILT.every((file) => existsSync(file) && statSync(file).mtimeMs >= source);
  if (fresh) return;
  console.log('gateway: dist/ is older than the source; building it first');
  execFileSync(join(GATEWAY, 'node_modules/.bin/tsup'), { cwd: GATEWAY, stdio: 'inherit' });
}
