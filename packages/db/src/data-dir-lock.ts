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
// The lock is refreshed while held and counts as stale 10 s after its holder died (SIGKILL included).
const STALE_MS = 10_000;

export async function lockDataDir(dataDir: string, waitMs = Number(process.env.DATA_DIR_LOCK_WAIT_MS ?? 0)): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, {
      stale: STALE_MS,
      update: STALE_MS / 2,
      lockfilePath: `${dataDir}/.lock`,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 1000), minTimeout: 1000, maxTimeout: 1000 } : 0,
      onCompromised: (err) => {
        throw err;
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirBusyError(dataDir);
    throw err;
  }
}
