import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

export default defineConfig({
  test: { reporters: reporters('db'), include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
