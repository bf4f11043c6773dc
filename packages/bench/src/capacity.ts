import { Piscina } from 'piscina';

export interface Capacity {
  hashesPerSecond: number;
  hashes: number;
  seconds: number;
  workers: number;
  cost: number;
}

/**
 * The raw bcrypt capacity of this machine: hashes per second on one thread per worker,
 * each kept busy, with nothing else running. Every server figure is read against it.
 */
export async function measureCapacity(opts: { cost: number; workers: number; seconds: number }): Promise<Capacity> {
  const { cost, workers, seconds } = opts;
  const pool = new Piscina({
    filename: new URL('./workers/bcrypt-hash.js', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
  });
  try {
    // Two tasks per thread keep each one busy; a first round loads and warms every thread.
    const lanes = workers * 2;
    await Promise.all(Array.from({ length: lanes }, () => pool.run({ cost })));
    let hashes = 0;
    const start = performance.now();
    const deadline = start + seconds * 1000;
    const lane = async () => {
      while (performance.now() < deadline) {
        await pool.run({ cost });
        hashes++;
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    const elapsed = (performance.now() - start) / 1000;
    return { hashesPerSecond: hashes / elapsed, hashes, seconds: elapsed, workers, cost };
  } finally {
    await pool.destroy();
  }
}
