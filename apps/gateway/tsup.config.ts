import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';

// One bundle with the workspace packages inlined; npm dependencies stay external
// (PGlite and piscina load files relative to their own modules), except drizzle-orm: Node reads
// its 179 KB package.json again for each of the hundreds of files it loads, which was 0.4 s of
// CPU in every start of the server and of each operator command.
export default defineConfig({
  entry: {
    main: 'src/main.ts',
    cli: 'src/cli.ts',
    'hash-worker': '../../packages/api/src/credentials/hash-worker.js',
  },
  format: 'esm',
  target: 'node24',
  platform: 'node',
  clean: true,
  splitting: true,
  noExternal: [/^@accounts\//, /^drizzle-orm/],
  // Only used when the hashing worker runs from TypeScript sources (tests, development).
  external: ['tsx'],
  esbuildOptions(options) {
    options.conditions = ['source'];
  },
  onSuccess: () => cp('../../packages/db/migrations', 'dist/migrations', { recursive: true }),
});
