import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// HAProxy started from the project's own deploy/haproxy.cfg, the file an operator starts from:
// its addresses come from the environment ("${GATEWAY_1}"), so the file is used unchanged.

export const HAPROXY_CFG = fileURLToPath(new URL('../../../../deploy/haproxy.cfg', import.meta.url));

/** True when the `haproxy` binary runs (Debian's package; .ci/run installs it). */
export function haproxyAvailable(): boolean {
  return spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
}

export interface Balancer {
  port: number;
  child: ChildProcess;
  logs: string[];
  stop(): Promise<void>;
}

/** Starts HAProxy on 127.0.0.1:`port` in front of `gateways` (host:port each, one to three). */
export async function startHaproxy(port: number, gateways: string[]): Promise<Balancer> {
  // Only the search path from ours (like the gateways' processes), and the addresses.
  const inherited = Object.fromEntries(['PATH'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  const env: Record<string, string> = { ...inherited, LISTEN: `127.0.0.1:${port}` };
  gateways.forEach((address, i) => (env[`GATEWAY_${i + 1}`] = address));
  const check = spawnSync('haproxy', ['-c', '-q', '-f', HAPROXY_CFG], { env, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`deploy/haproxy.cfg refused:\n${check.stderr}${check.stdout}`);
  const child = spawn('haproxy', ['-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => logs.push(d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => logs.push(d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Listening once a connection is accepted (HAProxy prints nothing when all is well).
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`haproxy did not start:\n${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    child,
    logs,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
