import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// The smoke test starts real servers (the gateway twice, better-auth) and runs every scenario
// once: generous timeouts for a busy machine, and no parallel files.
export default defineConfig({
  test: {
    reporters: reporters('bench'),
    include: ['test/**/*.test.ts'],
    testTimeout: 400_000,
    hookTimeout: 30_000,
    fileParallelism: false,
  },
});
