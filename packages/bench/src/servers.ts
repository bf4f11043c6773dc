import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, waitForHealth } from '@accounts/testing';
import type { ProbeStats } from './probe-types.js';

const PROBE = new URL('./probe.js', import.meta.url).href;
// A first start on a new PGlite directory runs initdb, which is slow on a busy machine.
const READY_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ServerUnderTest {
  name: string;
  url: string;
  pid: number;
  /** Clears the probe's window (event-loop histogram, RSS peak) and returns the stats before it. */
  reset(): Promise<ProbeStats>;
  report(): Promise<ProbeStats>;
  /** Resolves once the process has gone quiet (e.g. queued hashes finished after a run). */
  settle(): Promise<ProbeStats>;
  stop(): Promise<void>;
}

export { freePort };

/**
 * Starts `node [nodeArgs] <entry>` with the probe preloaded and an IPC channel for it,
 * and resolves when GET /healthz answers. The server's own output is passed through,
 * prefixed with its name (servers under test run at log level warn).
 */
export async function startServer(opts: {
  name: string;
  entry: string;
  nodeArgs?: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  cwd?: string;
}): Promise<ServerUnderTest> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', PROBE, opts.entry], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => console.error(`[${opts.name}] ${line}`));
  }
  const exited = once(child, 'exit');
  let stopping = false;
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`[${opts.name}] exited unexpectedly (${code ?? signal})`);
  });
  const url = `http://127.0.0.1:${opts.port}`;
  try {
    await waitForHealth(url, { child, timeoutMs: READY_TIMEOUT_MS });
  } catch (err) {
    stopping = true;
    await kill(child, exited);
    throw err;
  }
  console.error(`bench: ${opts.name} started (pid ${child.pid}) on ${url}`);

  const ask = (probe: 'reset' | 'report') =>
    new Promise<ProbeStats>((resolve, reject) => {
      const onMessage = (msg: { probe?: string } & ProbeStats) => {
        if (msg?.probe !== probe) return;
        done();
        resolve(msg);
      };
      const onExit = () => {
        done();
        reject(new Error(`${opts.name} exited`));
      };
      const done = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({ probe }, (err) => err && onExit());
    });

  return {
    name: opts.name,
    url,
    pid: child.pid!,
    reset: () => ask('reset'),
    report: () => ask('report'),
    async settle() {
      // Quiet: under a tenth of a core over a quarter second, or 2 minutes have passed (a busy
      // machine drains a full hashing queue slowly).
      let last = await ask('report');
      for (let i = 0; i < 480; i++) {
        await sleep(250);
        const now = await ask('report');
        const busy = (now.cpuMicros - last.cpuMicros) / 250_000;
        last = now;
        if (busy < 0.1) break;
      }
      return last;
    },
    async stop() {
      stopping = true;
      await kill(child, exited);
      console.error(`bench: ${opts.name} stopped (pid ${child.pid})`);
    },
  };
}

/** SIGTERM for a graceful stop, SIGKILL if it takes too long. */
async function kill(child: ChildProcess, exited: Promise<unknown>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
