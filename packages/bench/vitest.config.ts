import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

// The smoke test starts real servers: generous timeouts, and no parallel files.
export default defineConfig({
  test: { reporters: reporters('bench'), include: ['test/**/*.test.ts'], testTimeout: 110_000, hookTimeout: 30_000, fileParallelism: false },
});
