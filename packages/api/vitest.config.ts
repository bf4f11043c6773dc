import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// The files share one process (isolate: false): each file still has its own database, and the
// modules, the migrated template and the hashing pool (test/harness.ts) are loaded once, not once
// per file — most of a file's CPU before this. No file here mocks modules or timers.
export default defineConfig({
  test: {
    reporters: reporters('api'),
    include: ['test/**/*.test.ts'],
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
