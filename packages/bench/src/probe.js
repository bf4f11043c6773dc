// Preloaded into a server under test (`node --import <this file> server.js`): answers the
// benchmark's questions about the process over the IPC channel, with no change to the server.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** @typedef {import('./probe-types.js').ProbeStats} ProbeStats */

// The histogram records whole timer intervals, so the resolution itself is taken off.
const RESOLUTION_MS = 10;
const MB = 1024 * 1024;

const send = process.send?.bind(process);
if (send) {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // RSS sampled often enough to catch a peak within a scenario.
  let rssPeak = process.memoryUsage.rss();
  setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 100).unref();

  const lateMs = (/** @type {number} */ ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

  /** @returns {ProbeStats} */
  const stats = () => {
    const rss = process.memoryUsage.rss();
    rssPeak = Math.max(rssPeak, rss);
    const cpu = process.cpuUsage();
    return {
      eventLoopDelayMs: {
        p50: lateMs(delay.percentile(50)),
        p99: lateMs(delay.percentile(99)),
        max: lateMs(delay.max),
      },
      rssMB: rss / MB,
      rssPeakMB: rssPeak / MB,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      cpuMicros: cpu.user + cpu.system,
    };
  };

  process.on('message', (/** @type {unknown} */ msg) => {
    const ask = msg && typeof msg === 'object' && 'probe' in msg ? msg.probe : undefined;
    if (ask === 'reset') {
      delay.reset();
      rssPeak = process.memoryUsage.rss();
    }
    if (ask === 'reset' || ask === 'report') send({ probe: ask, ...stats() });
  });
  // The channel alone must not keep the server running.
  process.channel?.unref();
  // The benchmark went away without stopping the server: stop it as Ctrl-C would.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
