/** What the preloaded probe (probe.js) reports about a server process. */
export interface ProbeStats {
  /** Event-loop delay since the last reset, beyond the timer's own interval. */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  rssMB: number;
  /** Highest RSS since the last reset. */
  rssPeakMB: number;
  /** Highest RSS over the process's life, from the kernel. */
  maxRssMB: number;
  /** User + system CPU time of all the process's threads since it started. */
  cpuMicros: number;
}
