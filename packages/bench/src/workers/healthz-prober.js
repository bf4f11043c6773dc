// Probes GET /healthz at a steady rate over one keep-alive connection, in its own thread so
// the load generator's work on the main thread does not delay the probes or their timing.
import http from 'node:http';
import { createHistogram } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ url: string, intervalMs: number, durationMs: number }} */
const { url, intervalMs, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const micros = createHistogram();
let failures = 0;

// Timed from when the probe was due, so a probe queued behind a slow one counts its wait too.
const probe = () =>
  new Promise((resolve) => {
    const due = performance.now();
    const fail = () => {
      failures++;
      resolve(undefined);
    };
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) micros.record(Math.max(1, Math.round((performance.now() - due) * 1000)));
        else failures++;
        resolve(undefined);
      });
      res.on('error', fail);
    });
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', fail);
  });

const inFlight = new Set();
const timer = setInterval(() => {
  const p = probe().finally(() => inFlight.delete(p));
  inFlight.add(p);
}, intervalMs);

async function finish() {
  clearInterval(timer);
  await Promise.all(inFlight);
  agent.destroy();
  const ms = (/** @type {number} */ us) => us / 1000;
  parentPort?.postMessage({
    samples: micros.count,
    failures,
    p50: ms(micros.percentile(50)),
    p99: ms(micros.percentile(99)),
    max: ms(micros.max),
  });
}
setTimeout(() => void finish(), durationMs);
