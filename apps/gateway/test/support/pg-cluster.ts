import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@accounts/testing';

// A private PostgreSQL cluster that a test may stop and start at will (never the shared one
// that TEST_DATABASE_URL points at): initdb into a temporary directory, on a free port, run as
// the postgres OS user.

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, if it has initdb and pg_ctl. */
function binDir(): string | null {
  if (!existsSync(ROOT)) return null;
  const versions = readdirSync(ROOT)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  const bin = versions
    .map((v) => join(ROOT, v, 'bin'))
    .find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  return bin ?? null;
}

function postgresUid(): number | null {
  try {
    return Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
}

/** True when this machine can run a private cluster: the binaries, and root to act as postgres. */
export function privateClusterAvailable(): boolean {
  return (
    binDir() !== null && postgresUid() !== null && (process.getuid?.() === 0 || process.getuid?.() === postgresUid())
  );
}

export interface Cluster {
  url: string;
  port: number;
  start(): Promise<void>;
  /** pg_ctl stop: "fast" ends sessions and checkpoints; "immediate" is a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
}

export async function createCluster(): Promise<Cluster> {
  const bin = binDir()!;
  const uid = postgresUid()!;
  const dir = mkdtempSync(join(tmpdir(), 'accounts-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  chownSync(dir, uid, uid);
  const port = await freePort();
  // Asynchronous, so the test's own clients keep running while the server stops or starts.
  const asPostgres = async (cmd: string, args: string[]) => {
    const [file, argv] =
      process.getuid?.() === 0
        ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]]
        : [join(bin, cmd), args];
    await promisify(execFile)(file, argv, { cwd: dir, timeout: 60_000 });
  };
  let running = false;
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`;
      await asPostgres('pg_ctl', ['start', '-w', '-t', '30', '-D', data, '-l', log, '-o', opts]);
      running = true;
    },
    async stop(mode = 'fast') {
      await asPostgres('pg_ctl', ['stop', '-w', '-t', '30', '-D', data, '-m', mode]);
      running = false;
    },
    async destroy() {
      try {
        if (running) await cluster.stop('immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await cluster.start();
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return cluster;
}
