import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

/** A TCP port free on 127.0.0.1 right now (for servers that must be told their port). */
export function freePort(): Promise<number> {
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
 * Resolves once `GET <baseUrl>/healthz` answers 200; rejects if the process exits first or
 * nothing answers within `timeoutMs` (a bound on a hung start, not a measurement).
 */
export async function waitForHealth(
  baseUrl: string,
  opts: { child?: ChildProcess; timeoutMs?: number; log?: () => string } = {},
) {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const why = () => (opts.log ? `:\n${opts.log()}` : '');
  while (Date.now() < deadline) {
    if (opts.child && opts.child.exitCode !== null)
      throw new Error(`the server exited with code ${opts.child.exitCode}${why()}`);
    try {
      const res = await request(`${baseUrl}/healthz`, { headersTimeout: 5000, bodyTimeout: 5000 });
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${baseUrl}/healthz did not answer 200 in time${why()}`);
}
