import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// End-to-end tests: real headless Chromium against the gateway serving the production build.
export default defineConfig({
  test: {
    reporters: reporters('web-e2e'),
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    // One gateway process (PGlite is single-process) and one browser at a time on small machines.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
