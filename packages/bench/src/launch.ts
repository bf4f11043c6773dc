import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FreshDatabase } from './databases.js';
import { freePort, startServer, type ServerUnderTest } from './servers.js';
import type { Settings } from './settings.js';

export const benchDir = fileURLToPath(new URL('..', import.meta.url));
const root = join(benchDir, '..', '..');
const gatewayMain = join(root, 'apps', 'gateway', 'dist', 'main.js');

/** turbo rebuilds the gateway only when its sources changed (a cache hit otherwise). */
export function buildGateway(log: (line: string) => void) {
  const turbo = spawnSync(
    join(root, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', '--filter=@accounts/gateway', '--output-logs=errors-only'],
    {
      cwd: root,
      encoding: 'utf8',
      // Never the test runner's NODE_ENV=test: Vite would build the web app for development.
      env: { ...process.env, NODE_ENV: 'production', TURBO_TELEMETRY_DISABLED: '1' },
    },
  );
  if (turbo.status === 0) return;
  process.stderr.write(`${turbo.stdout ?? ''}${turbo.stderr ?? ''}`);
  if (!existsSync(gatewayMain)) throw new Error('the gateway build failed');
  log('the gateway build failed: benchmarking the existing apps/gateway/dist');
}

/** The servers' environment: the caller's, less anything that would point them elsewhere. */
function serverEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  // No mail server in a benchmark: mails are logged (links masked), as a production server is told to.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', MAIL_TRANSPORT: 'log' };
  for (const key of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'NODE_OPTIONS', 'PORT']) delete env[key];
  return { ...env, ...vars };
}

/**
 * The production build, started as `npm start` starts it: `node --max-semi-space-size=4
 * apps/gateway/dist/main.js` with `MALLOC_ARENA_MAX=2` (docs/operations.md, "Memory").
 */
export async function startGateway(s: Settings, db: FreshDatabase, nodeArgs: string[] = []): Promise<ServerUnderTest> {
  const port = await freePort();
  return startServer({
    name: 'gateway',
    entry: gatewayMain,
    nodeArgs: ['--max-semi-space-size=4', ...nodeArgs],
    cwd: root,
    port,
    env: serverEnv({
      ...db.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      BCRYPT_COST: String(s.cost),
      HASH_WORKERS: String(s.workers),
      HASH_QUEUE_MAX: String(s.queueMax),
      // All load comes from one address and retries the same accounts.
      RATE_LIMIT_REGISTER: '0',
      RATE_LIMIT_SIGN_IN: '0',
      RATE_LIMIT_CHANGE_PASSWORD: '0',
      RATE_LIMIT_ACCOUNT_WRITES: '0',
      ACCOUNT_MAX_FAILURES: '1000',
      ACCOUNT_FAILURE_CAP: '100000',
      // The enumeration probe asks for many resets, of one account among others.
      RATE_LIMIT_FORGOT_PASSWORD: '0',
      RATE_LIMIT_MAIL_PER_EMAIL: '0',
      MAIL_RECIPIENT_CAP: '0',
      PASSWORD_PEPPER: 'benchmark-pepper-for-a-throwaway-database-0123456789',
      // As `npm start` and the gateway's start script run it (docs/operations.md, Memory).
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    }),
  });
}

/** The better-auth peer (src/peer/server.ts) on the same kind of database, with its own password hashing. */
export async function startPeer(db: FreshDatabase): Promise<ServerUnderTest> {
  const port = await freePort();
  return startServer({
    name: 'better-auth',
    entry: join('src', 'peer', 'server.ts'),
    nodeArgs: ['--import', 'tsx'],
    cwd: benchDir,
    port,
    env: serverEnv({ ...db.env, PORT: String(port) }),
  });
}

/** The floor server (src/floor/server.js) on the gateway's PostgreSQL database, beside the gateway. */
export async function startFloor(db: FreshDatabase): Promise<ServerUnderTest> {
  const port = await freePort();
  return startServer({
    name: 'floor',
    entry: join('src', 'floor', 'server.js'),
    cwd: benchDir,
    port,
    env: serverEnv({ ...db.env, PORT: String(port) }),
  });
}
