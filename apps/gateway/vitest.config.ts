import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

export default defineConfig({
  test: { reporters: reporters('gateway'), include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
