import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL settings for the embedded database. PGlite keeps PostgreSQL's server defaults
 * (128 MB of shared buffers, 4 MB per sort) inside a WebAssembly heap that only grows, so
 * they show as resident memory for the life of the process. One process with one connection
 * and a small working set needs far less; the data files stay cached by the operating system
 * underneath. Given on the command line, so postgresql.conf in the data directory is left as
 * initdb wrote it. PGlite's own start parameters (durability included) are kept as they are.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '1MB',
};

export const PGLITE_START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
];

/**
 * V8 compiles WebAssembly with its baseline compiler (Liftoff) and recompiles the functions that
 * run often with its optimising one (TurboFan). For PGlite's 9 MB module that second tier keeps
 * about 40 MB more resident for the life of the process (its code and the compiler's memory),
 * for about an eighth more CPU per statement (docs/operations.md, Memory). Read when a
 * module is compiled, so it must be set before the first PGlite; it holds for every WebAssembly
 * module the process compiles afterwards. `--liftoff-only` stops tiering up through the two flags
 * it implies, `--no-wasm-tier-up` and `--no-wasm-dynamic-tiering`; Node.js 24's V8 (13.6) draws
 * those only while it reads the command line (20's, 11.3, also when set later), so set in the
 * process they are given too, both of them (either alone still lets hot functions reach TurboFan).
 */
export function compileWasmWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}

// initdb runs in a PGlite instance of its own whose heap (about 500 MB) stays in the process
// that ran it, and the first migrations grow the heap of the one that runs them by another
// 40-60 MB for good. So a new data directory is made and migrated by a short-lived child
// process, and the server opens it as it opens an existing one.
// Its umask makes the directories it creates the owner's alone (PGlite's files are fixed up after).
const INIT_SCRIPT = `
process.umask(0o077);
const [pglite, drizzle, migrator, dir, migrationsFolder] = process.argv.slice(1);
const { PGlite } = require(pglite);
(async () => {
  const client = await PGlite.create(dir);
  await require(migrator).migrate(require(drizzle).drizzle({ client }), { migrationsFolder });
  await client.close();
})().catch((err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); });
`;

const STAGING = '.initdb';

/**
 * Creates and migrates the database files in `dataDir` (held under the caller's lock) if it
 * has none. They are made in a staging folder and moved in with PG_VERSION last: a start
 * interrupted half way leaves no PG_VERSION, so the next start makes them again instead of
 * opening half a database.
 */
export async function initialiseDataDir(dataDir: string, migrationsFolder: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const staging = join(dataDir, STAGING);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  await runInitdb(staging, migrationsFolder);
  const entries = readdirSync(staging).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
  for (const entry of entries) {
    // Anything already there of the same name is left from an interrupted start.
    rmSync(join(dataDir, entry), { recursive: true, force: true });
    renameSync(join(staging, entry), join(dataDir, entry));
  }
  rmSync(staging, { recursive: true, force: true });
}

/** Group and other permission bits: nobody but the owner may read, write or enter. */
const OTHERS = 0o077;

/** Takes the group's and others' permissions from a file or directory (never through a symlink); whether it had any. */
function ownerOnly(path: string): boolean {
  let mode: number;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return false;
    mode = stat.mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if ((mode & OTHERS) === 0) return false;
  try {
    chmodSync(path, mode & 0o7777 & ~OTHERS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    throw new Error(
      `${path} is open to other users and belongs to another user than the one the service runs as: ` +
        'the data directory and everything in it must be that user’s (chown -R it, then start again)',
    );
  }
  return true;
}

/**
 * Makes the data directory and everything in it the service user's alone: the group's and others'
 * permissions go (directories 0700, files 0600; an owner's bit is never added). PGlite writes its
 * files (WAL, catalog, settings) readable by everyone whatever the umask, so the directory's own
 * mode is what keeps other local users out while it runs; the files are put right at every open
 * (before PGlite starts) and close all the same, under the caller's lock. Returns whether the
 * directory itself was open to others (then they could read the database until now); throws when
 * it cannot be changed (another user's directory).
 */
export function keepDataDirPrivate(dataDir: string): { wasOpen: boolean } {
  const wasOpen = ownerOnly(dataDir);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      ownerOnly(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dataDir);
  return { wasOpen };
}

function runInitdb(dir: string, migrationsFolder: string): Promise<void> {
  const { resolve } = createRequire(import.meta.url);
  const modules = ['@electric-sql/pglite', 'drizzle-orm/pglite', 'drizzle-orm/pglite/migrator'].map((m) => resolve(m));
  const child = spawn(process.execPath, ['-e', INIT_SCRIPT, ...modules, dir, migrationsFolder], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`creating the database in ${dir} failed (${code ?? signal}): ${stderr.trim()}`)),
    );
  });
}
