import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';

export default defineConfig({
  plugins: [react()],
  test: {
    reporters: reporters('web'),
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Typing through user-event is slow on a loaded machine; this only guards against a hang.
    testTimeout: 30_000,
  },
});
