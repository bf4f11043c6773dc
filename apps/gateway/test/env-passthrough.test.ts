// turbo runs tasks in strict environment mode: a variable missing from turbo.json's
// pass-through list arrives as undefined inside `npm test` and `pnpm dev`, while the same
// variable works with `node dist/main.js`. These checks keep the README, the configuration
// schema, the code and turbo.json in step.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../src/config.js';

const root = new URL('../../../', import.meta.url).pathname;
const turbo = JSON.parse(readFileSync(join(root, 'turbo.json'), 'utf8')) as { globalEnv?: string[]; globalPassThroughEnv?: string[] };
const patterns = [...(turbo.globalPassThroughEnv ?? []), ...(turbo.globalEnv ?? [])];

/** turbo's wildcard: `*` matches any run of characters. */
export const passedThrough = (name: string, list = patterns) =>
  list.some((p) => new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name));

/** Every variable named in the first column of the README's "## Configuration" table. */
export function documentedVariables(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Configuration'));
  if (!section) throw new Error('README has no "## Configuration" section');
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const first = line.startsWith('|') ? line.split('|')[1] : undefined;
    for (const m of first?.matchAll(/`([A-Z][A-Z0-9_]*)`/g) ?? []) names.add(m[1]!);
  }
  return [...names];
}

/** Every variable the project's own sources read from the environment. */
function variablesReadByCode(): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', '.turbo', '.data', 'test-results'].includes(entry.name) || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) {
        for (const m of readFileSync(path, 'utf8').matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) names.add((m[1] ?? m[2])!);
      }
    }
  };
  for (const dir of ['apps', 'packages', 'scripts']) walk(join(root, dir));
  return [...names];
}

describe('environment variables reach the processes turbo starts', () => {
  const documented = documentedVariables(readFileSync(join(root, 'README.md'), 'utf8'));

  it('reads the README table', () => {
    // The table has about two dozen rows; an empty parse would make the checks below vacuous.
    expect(documented.length).toBeGreaterThan(20);
    expect(documented).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'RATE_LIMIT_SIGN_IN', 'SESSION_TTL_HOURS']));
  });

  it('passes through every variable the README documents', () => {
    expect(documented.filter((name) => !passedThrough(name))).toEqual([]);
  });

  it('documents every variable the server reads', () => {
    expect(Object.keys(envSchema.shape).filter((name) => !documented.includes(name))).toEqual([]);
  });

  it('passes through every variable the code reads', () => {
    // Set by the test runner for turbo itself, not read inside a task.
    const turboOwn = ['FORCE_COLOR'];
    expect(variablesReadByCode().filter((name) => !turboOwn.includes(name) && !passedThrough(name))).toEqual([]);
  });

  it('matches wildcards the way turbo does', () => {
    expect(passedThrough('RATE_LIMIT_SIGN_IN', ['RATE_LIMIT_*'])).toBe(true);
    expect(passedThrough('SESSION_TTL_HOURS', ['RATE_LIMIT_*'])).toBe(false);
    expect(passedThrough('MY_PORT', ['PORT'])).toBe(false);
    expect(documentedVariables('# X\n## Configuration\n| Variable |\n|---|\n| `A_B` / `C` | `1` |\n## Next\n| `D` |')).toEqual(['A_B', 'C']);
  });
});
