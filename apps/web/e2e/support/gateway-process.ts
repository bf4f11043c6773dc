import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GATEWAY_CLI, GATEWAY_MAIN } from './paths';

const run = promisify(execFile);

export interface RunningGateway {
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the built gateway on a fresh data directory with realm "acme" created beforehand
 * (the embedded database allows one process at a time), and waits until it answers.
 */
export async function startGateway(): Promise<RunningGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'accounts-web-e2e-'));
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'warn',
    PASSWORD_PEPPER: 'e2e-only-pepper-not-a-secret',
  };
  await run(process.execPath, [GATEWAY_CLI, 'realm', 'create', 'acme', 'Acme Inc'], { env });

  const child = spawn(process.execPath, [GATEWAY_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  child.stdout.on('data', (chunk) => log.push(String(chunk)));
  child.stderr.on('data', (chunk) => log.push(String(chunk)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await waitForHealth(child, port, log);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    async stop() {
      process.off('exit', killOnExit);
      await stopProcess(child);
      await rm(dataDir, { recursive: true, force: true });
      const problems = log.join('').trim();
      if (problems) console.warn(`gateway log (warnings and errors):\n${problems}`);
    },
  };
}

async function waitForHealth(child: ChildProcess, port: number, log: string[]) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with code ${child.exitCode}:\n${log.join('')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the gateway did not answer /healthz within 30 s:\n${log.join('')}`);
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
