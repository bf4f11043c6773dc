import react from '@vitejs/plugin-react';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { gzipAsync } from '@gfx/zopfli';
import { defineConfig } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';

/**
 * gzip copies made with zopfli (about 4% smaller than zlib's best, same format, more time at
 * build); the large password-data chunk, loaded late, keeps zlib's so the build stays quick.
 */
async function gzipSmallest(input: string | ArrayBufferView | ArrayBuffer): Promise<Buffer> {
  const buf =
    typeof input === 'string'
      ? Buffer.from(input)
      : Buffer.from(
          input instanceof ArrayBuffer
            ? input
            : input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength),
        );
  if (buf.byteLength > 600_000) return promisify(gzip)(buf, { level: 9 });
  return Buffer.from(await gzipAsync(buf, { numiterations: 15 }));
}

// In development the gateway runs on :3000 (or GATEWAY_URL). The dev server forwards API calls
// with the browser's Host unchanged, so realm lookup (by host) and the same-origin check still work.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:3000';

// The server build (`vite build --ssr`): src/entry-server.tsx and everything it needs in one
// file, dist-server/entry-server.js, which the gateway imports to render each page.
const serverBuild = defineConfig({
  plugins: [react()],
  ssr: { noExternal: true },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  publicDir: false,
  build: { outDir: 'dist-server', emptyOutDir: true },
});

const browserBuild = defineConfig({
  plugins: [
    react(),
    // Brotli and gzip copies beside each file; the gateway sends the one the browser accepts.
    compression({
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm(gzipSmallest)],
      exclude: [/\.map$/, /\.(png|woff2?)$/],
      threshold: 512,
    }),
  ],
  server: {
    allowedHosts: ['.localhost'],
    proxy: {
      '/trpc': { target: gateway },
      '/users': { target: gateway },
    },
  },
  build: {
    outDir: 'dist',
    // Maps are written for error tracking but not referenced from the bundles; the gateway never serves them.
    sourcemap: 'hidden',
    rolldownOptions: {
      output: {
        // Separate chunks for what rarely changes, so a new app build does not re-download them.
        // The password estimator and its dictionaries stay out of the vendor chunk: only the
        // pages with a new password load them (a dynamic import), never the sign-in page.
        codeSplitting: {
          groups: [
            // The password estimator's dictionaries are large and only loaded where a new password is typed.
            { name: 'password-estimator', test: /node_modules[\\/](@zxcvbn-ts|fastest-levenshtein)[\\/]/ },
            // The browser's side of passkeys (the library, and the sign-in's use of it): loaded once
            // the sign-in page runs, never with its first scripts, and by the pages that use passkeys.
            {
              name: 'webauthn',
              test: /node_modules[\\/]@simplewebauthn[\\/]|[\\/]src[\\/](passkey-prompt|i18n[\\/]prompt-strings)\.ts$/,
            },
            // What every page needs at once; anything else from node_modules stays with its importer.
            { name: 'vendor', test: /node_modules[\\/](react|react-dom|scheduler|@tanstack|@trpc|zod)[\\/]/ },
          ],
        },
      },
    },
  },
});

export default defineConfig(({ isSsrBuild }) => (isSsrBuild ? serverBuild : browserBuild));
