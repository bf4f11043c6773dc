import { defineConfig } from 'vitest/config';
import { reporters } from '../../vitest.shared.js';
import e2e from './vitest.e2e.config.js';

// Lighthouse on every page (e2e/lighthouse.test.ts), with the end-to-end set-up. Its performance
// score replays the main-thread tasks the browser recorded, so other work on the machine while a
// page loads counts against the page: `npm test` runs it as a task of its own (turbo.json,
// test:lighthouse) after every other package's tests, on a machine left to it.
export default defineConfig({
  test: {
    ...e2e.test,
    reporters: reporters('web-lighthouse'),
    include: ['e2e/lighthouse.test.ts'],
    exclude: [],
  },
});
