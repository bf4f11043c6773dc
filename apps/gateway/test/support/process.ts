import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { httpClient, type Client } from '@accounts/testing';

// The gateway as its own process, started from the build an operator runs (`node dist/main.js`;
// test/support/fresh-build.ts keeps it as new as the source), for the tests that kill, stop or
// restart it, or run two of it.
const GATEWAY_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayProcess {
  port: number;
  child: ChildProcess;
  /** Its log lines (pino JSON) and anything it wrote to stderr. */
  logs: string[];
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  client: Client;
  /** SIGTERM, and waits for the exit (killed after `ms` if it hangs). */
  stop(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Test settings: fast hashing, no web app, limits out of the way unless a test sets them. */
const BASE_ENV = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  SERVE_WEB: 'false',
  BCRYPT_COST: '4',
  HASH_WORKERS: '1',
  PASSWORD_PEPPER: 'process-test-pepper-0123456789abcdef-0002',
  SECRET_KEY: '5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee0002',
  RATE_LIMIT_REGISTER: '1000000',
  RATE_LIMIT_SIGN_IN: '1000000',
  RATE_LIMIT_CHANGE_PASSWORD: '1000000',
  RATE_LIMIT_ACCOUNT_WRITES: '1000000',
};

/**
 * Starts `node dist/main.js` and resolves once it listens (rejects if it exits or hangs first).
 * Start-up (an embedded PGlite's first open) takes a few seconds on a quiet 2-core machine and
 * over 45 s under the load of a benchmark running beside the suite: 90 s still catches a hang.
 */
export function spawnGateway(env: Record<string, string>, readyMs = 90_000): Promise<GatewayProcess> {
  // Only what the process needs from ours: no DATABASE_URL or REDIS_URL leaks in by accident.
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: GATEWAY_DIR,
    env: { ...inherited, ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const collect = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      logs.push(...lines.filter(Boolean));
    });
  };
  collect(child.stdout);
  collect(child.stderr);

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway not listening after ${readyMs} ms:\n${logs.slice(-20).join('\n')}`));
    }, readyMs);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code ?? signal}) before listening:\n${logs.slice(-20).join('\n')}`));
    });
    const poll = setInterval(() => {
      const port = logs.map((l) => /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l)?.[1]).find(Boolean);
      if (!port) return;
      clearInterval(poll);
      clearTimeout(timer);
      const client = httpClient(Number(port));
      resolve({
        port: Number(port),
        child,
        logs,
        exited,
        client,
        async stop(ms = 20_000) {
          child.kill('SIGTERM');
          const guard = setTimeout(() => child.kill('SIGKILL'), ms);
          const how = await exited;
          clearTimeout(guard);
          await client.close();
          return how;
        },
      });
    }, 25);
    void exited.then(() => clearInterval(poll));
  });
}
