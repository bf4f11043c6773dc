import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// End-to-end tests: real headless Chromium against the gateway serving the production build.
export default defineConfig({
  test: {
    reporters: reporters('web-e2e'),
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    // Lighthouse runs on its own, once every other test has finished: vitest.lighthouse.config.ts.
    exclude: ['e2e/lighthouse.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    // One gateway process (PGlite is single-process) and one browser at a time on small machines.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
