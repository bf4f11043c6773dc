import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// The hardening tests (test/hardening: attacks, faults and limits against real processes) are a
// task of their own, vitest.hardening.config.ts, so that `npm test` runs them beside the rest of
// the suite instead of after this package's other tests, the longest of the suite.
export default defineConfig({
  test: {
    reporters: reporters('gateway'),
    include: ['test/**/*.test.ts'],
    exclude: ['test/hardening/**'],
    globalSetup: ['test/support/fresh-build.ts'],
    // Two files at once: most of a file's time is spent waiting on processes it started, on
    // PostgreSQL and on hashing threads, and this is the suite's longest task (vitest's default
    // on a 2-core machine is one).
    maxWorkers: 2,
    // A worker's files share its process: the modules and the hashing pools (test/support/gateway.ts)
    // are loaded once, not once per file. No file mocks modules; one fakes timers and restores them.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
