import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';
import main from './vitest.config.js';

// test/hardening alone (`pnpm run test:hardening`): see vitest.config.ts.
export default defineConfig({
  test: {
    ...main.test,
    reporters: reporters('gateway-hardening'),
    include: ['test/hardening/**/*.test.ts'],
    exclude: [],
    // One at a time: these tests load the machine on purpose (floods, faults, limits).
    maxWorkers: 1,
  },
});
