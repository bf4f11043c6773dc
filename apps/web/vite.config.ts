import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the gateway runs on :3000 (or GATEWAY_URL). The dev server forwards API calls
// with the browser's Host unchanged, so realm lookup (by host) and the same-origin check still work.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  server: {
    allowedHosts: ['.localhost'],
    proxy: {
      '/trpc': { target: gateway },
      '/users': { target: gateway },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    rolldownOptions: {
      output: {
        // Separate chunks for what rarely changes, so a new app build does not re-download them.
        codeSplitting: {
          groups: [
            { name: 'common-passwords', test: /common-passwords/ },
            { name: 'vendor', test: /node_modules/ },
          ],
        },
      },
    },
  },
});
