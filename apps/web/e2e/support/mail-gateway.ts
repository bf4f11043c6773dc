import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForHealth } from '@accounts/testing';
import { GATEWAY_CLI, GATEWAY_MAIN } from './paths';

const run = promisify(execFile);

/** The built gateway on its own data directory, sending mail to `smtpUrl`; its log is kept. */
export async function startMailGateway(smtpUrl: string) {
  const dataDir = await mkdtemp(join(tmpdir(), 'accounts-web-mail-'));
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'info',
    PASSWORD_PEPPER: 'e2e-only-pepper-not-a-secret',
    SMTP_URL: smtpUrl,
    MAIL_POLL_MS: '100',
  };
  await run(process.execPath, [GATEWAY_CLI, 'migrate'], { env });
  const child = spawn(process.execPath, [GATEWAY_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  child.stdout.on('data', (chunk) => log.push(String(chunk)));
  child.stderr.on('data', (chunk) => log.push(String(chunk)));
  await waitForHealth(`http://127.0.0.1:${port}`, { child, timeoutMs: 30_000, log: () => log.join('') });
  return {
    port,
    log: () => log.join(''),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
