import { readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';

export class DataDirBusyError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `The data directory ${dataDir} is in use by another process (most likely the running server). ` +
        'Stop the server first, or point DATABASE_URL at a PostgreSQL server that several processes can share.',
    );
    this.name = 'DataDirBusyError';
  }
}

// PGlite is a single-process database: two processes writing one directory would corrupt it.
// The holder refreshes the lock every second. A lock counts as stale 10 s after its last
// refresh, or 3 s after it when the holder is provably dead: recorded as a process of this
// machine's current boot and PID namespace that no longer exists (a SIGKILL, a crash).
const STALE_MS = 10_000;
const DEAD_HOLDER_STALE_MS = 3_000;
const UPDATE_MS = 1_000;
const RETRY_MS = 250;

/** Who this process is, in terms that only match on the same machine, boot and PID namespace. */
function identity(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${boot} ${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return null; // not Linux: never judge a holder dead, wait the full stale time
  }
}

function holderIsDead(ownerFile: string, me: string | null): boolean {
  if (!me) return false;
  try {
    const [pid, ...where] = readFileSync(ownerFile, 'utf8').trim().split(' ');
    if (where.join(' ') !== me || !/^\d+$/.test(pid ?? '')) return false;
    process.kill(Number(pid), 0);
    return false; // alive (or its PID was reused): wait the full stale time
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Takes the directory's lock, waiting up to `waitMs` for another holder to let go or go stale. */
export async function lockDataDir(dataDir: string, waitMs = 0): Promise<() => Promise<void>> {
  const ownerFile = `${dataDir}/.lock.owner`;
  const me = identity();
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const release = await lockfile.lock(dataDir, {
        stale: holderIsDead(ownerFile, me) ? DEAD_HOLDER_STALE_MS : STALE_MS,
        update: UPDATE_MS,
        lockfilePath: `${dataDir}/.lock`,
        retries: 0,
        onCompromised: (err) => {
          throw err;
        },
      });
      if (me) writeFileSync(ownerFile, `${process.pid} ${me}\n`);
      return async () => {
        rmSync(ownerFile, { force: true });
        await release();
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      if (Date.now() >= deadline) throw new DataDirBusyError(dataDir);
      await sleep(RETRY_MS);
    }
  }
}
