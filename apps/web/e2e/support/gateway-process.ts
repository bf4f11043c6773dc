import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, seedDataDir, waitForHealth } from '@accounts/testing';
import { GATEWAY_CLI, GATEWAY_MAIN } from './paths';

const run = promisify(execFile);

export interface RunningGateway {
  port: number;
  /** Everything the process wrote so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts the built gateway on a fresh data directory, after running the operator command
 * `prepare` on it (the embedded database allows one process at a time, so it runs first), and
 * waits until it answers. `env` comes on top of ours and the test settings.
 */
export async function startBuiltGateway({
  dirPrefix,
  prepare,
  env: extra,
  port: given,
}: {
  dirPrefix: string;
  /** Operator commands run one after the other before it starts; what each prints is kept. */
  prepare: string[] | string[][];
  env: Record<string, string>;
  /** The port, when its configuration must name it beforehand (PUBLIC_PORT, an issuer). */
  port?: number;
}): Promise<RunningGateway & { prepared: string; preparedEach: string[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), dirPrefix));
  // A copy of the migrated database, as the first command would have made it (about 5 s of CPU
  // saved per gateway; the first start on an empty directory is the gateway's own tests' case).
  await seedDataDir(dataDir);
  const port = given ?? (await freePort());
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BCRYPT_COST: '4',
    PASSWORD_PEPPER: 'e2e-only-pepper-not-a-secret-0123456789',
    ...extra,
  };
  const commands = typeof prepare[0] === 'string' ? [prepare as string[]] : (prepare as string[][]);
  const preparedEach: string[] = [];
  for (const command of commands)
    preparedEach.push((await run(process.execPath, [GATEWAY_CLI, ...command], { env })).stdout);

  const child = spawn(process.execPath, [GATEWAY_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  child.stdout.on('data', (chunk) => log.push(String(chunk)));
  child.stderr.on('data', (chunk) => log.push(String(chunk)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await waitForHealth(`http://127.0.0.1:${port}`, { child, timeoutMs: 30_000, log: () => log.join('') });
  } catch (error) {
    process.off('exit', killOnExit);
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    prepared: preparedEach.at(-1) ?? '',
    preparedEach,
    log: () => log.join(''),
    async stop() {
      process.off('exit', killOnExit);
      await stopProcess(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The gateway every browser test shares, with realm "acme" created; its warnings are shown at the end. */
export async function startGateway(): Promise<RunningGateway> {
  const gateway = await startBuiltGateway({
    dirPrefix: 'accounts-web-e2e-',
    prepare: ['realm', 'create', 'acme', 'Acme Inc'],
    env: {
      LOG_LEVEL: 'warn',
      // Every browser of every test file comes from 127.0.0.1 within one 10-minute window: the
      // per-address limits are raised so the suite's own total never trips them (the limits are
      // checked by the gateway's tests; the lockout per account, which these flows do meet, is kept).
      RATE_LIMIT_REGISTER: '500',
      RATE_LIMIT_SIGN_IN: '500',
      RATE_LIMIT_CHANGE_PASSWORD: '500',
      RATE_LIMIT_ACCOUNT_WRITES: '500',
      RATE_LIMIT_LINK_CHECK: '500',
    },
  });
  return {
    ...gateway,
    async stop() {
      await gateway.stop();
      const problems = gateway.log().trim();
      if (problems) console.warn(`gateway log (warnings and errors):\n${problems}`);
    },
  };
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
