// turbo runs tasks in strict environment mode: a variable missing from turbo.json's
// pass-through list arrives as undefined inside `npm test` and `pnpm dev`, while the same
// variable works with `node dist/main.js`. These checks keep the README, the configuration
// schema, the code and turbo.json in step.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../src/config.js';

const root = new URL('../../../', import.meta.url).pathname;
const turbo = JSON.parse(readFileSync(join(root, 'turbo.json'), 'utf8')) as {
  globalEnv?: string[];
  globalPassThroughEnv?: string[];
};
const patterns = [...(turbo.globalPassThroughEnv ?? []), ...(turbo.globalEnv ?? [])];

/** turbo's wildcard: `*` matches any run of characters. */
export const passedThrough = (name: string, list = patterns) =>
  list.some((p) =>
    new RegExp(
      `^${p
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(name),
  );

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
      if (
        ['node_modules', 'dist', '.turbo', '.data', 'test-results'].includes(entry.name) ||
        entry.name.startsWith('.')
      )
        continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) {
        for (const m of readFileSync(path, 'utf8').matchAll(
          /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g,
        ))
          names.add((m[1] ?? m[2])!);
      }
    }
  };
  for (const dir of ['apps', 'packages', 'scripts']) walk(join(root, dir));
  return [...names];
}

/** The assignments of a dotenv file: `NAME=value` lines, and commented `# NAME=value` ones apart. */
export function dotenvLines(text: string): { set: Record<string, string>; commented: string[] } {
  const set: Record<string, string> = {};
  const commented: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1]) commented.push(m[2]!);
    else set[m[2]!] = m[3]!.replace(/^"(.*)"$/, '$1');
  }
  return { set, commented };
}

/** Files of a source tree that read a variable from the environment by name. */
function readersOf(dir: string): string[] {
  const readers: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|js)$/.test(entry.name) && /process\.env(\.[A-Z]|\[['"])/.test(readFileSync(path, 'utf8')))
        readers.push(path.slice(root.length));
    }
  };
  walk(join(root, dir));
  return readers;
}

describe('the configuration module is the one reader of the environment', () => {
  it('no other module of the server reads a variable', () => {
    // config.ts reads the whole environment at once; packages/db/src/testing.ts is the tests' helper
    // (TEST_DATABASE_URL), not part of the server.
    const readers = ['apps/gateway/src', 'packages/api/src', 'packages/db/src', 'packages/validators/src'].flatMap(
      readersOf,
    );
    expect(readers.sort()).toEqual(['packages/db/src/testing.ts']);
  });
});

describe('.env.example', () => {
  const example = dotenvLines(readFileSync(join(root, '.env.example'), 'utf8'));

  it('lists every setting of the server, and nothing else', () => {
    expect([...Object.keys(example.set), ...example.commented].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('gives each setting its default', () => {
    expect(Object.keys(example.set).length).toBeGreaterThan(40);
    expect(loadConfig(example.set)).toEqual(loadConfig({}));
    // A commented line is a setting without a fixed default.
    for (const name of example.commented)
      expect(envSchema.shape[name as keyof typeof envSchema.shape].safeParse(undefined).data, name).toSatisfy(
        (v) => v === undefined || name === 'HASH_WORKERS',
      );
  });

  it('reaches the processes turbo starts', () => {
    expect([...Object.keys(example.set), ...example.commented].filter((name) => !passedThrough(name))).toEqual([]);
  });
});

describe('environment variables reach the processes turbo starts', () => {
  const documented = documentedVariables(readFileSync(join(root, 'README.md'), 'utf8'));

  it('reads the README table', () => {
    // The table has about two dozen rows; an empty parse would make the checks below vacuous.
    expect(documented.length).toBeGreaterThan(20);
    expect(documented).toEqual(
      expect.arrayContaining(['PORT', 'DATABASE_URL', 'RATE_LIMIT_SIGN_IN', 'SESSION_TTL_HOURS']),
    );
  });

  it('passes through every variable the README documents', () => {
    expect(documented.filter((name) => !passedThrough(name))).toEqual([]);
  });

  it('documents every variable the server reads', () => {
    expect(Object.keys(envSchema.shape).filter((name) => !documented.includes(name))).toEqual([]);
  });

  it('passes through every variable the code reads', () => {
    // Set by the test runner for turbo itself, not read inside a task; PATH, which turbo always passes.
    const turboOwn = ['FORCE_COLOR', 'PATH'];
    expect(variablesReadByCode().filter((name) => !turboOwn.includes(name) && !passedThrough(name))).toEqual([]);
  });

  it('matches wildcards the way turbo does', () => {
    expect(passedThrough('RATE_LIMIT_SIGN_IN', ['RATE_LIMIT_*'])).toBe(true);
    expect(passedThrough('SESSION_TTL_HOURS', ['RATE_LIMIT_*'])).toBe(false);
    expect(passedThrough('MY_PORT', ['PORT'])).toBe(false);
    expect(
      documentedVariables('# X\n## Configuration\n| Variable |\n|---|\n| `A_B` / `C` | `1` |\n## Next\n| `D` |'),
    ).toEqual(['A_B', 'C']);
  });
});
