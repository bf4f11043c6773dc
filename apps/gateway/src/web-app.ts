import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// The web app's build: beside the gateway in the monorepo (apps/web/dist), from src/ or dist/ alike.
export const WEB_DIST_DIR = process.env.WEB_DIST_DIR ?? fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Serves the built single-page app; returns whether there was a build to serve. */
export async function registerWebApp(app: FastifyInstance): Promise<boolean> {
  if (!existsSync(`${WEB_DIST_DIR}/index.html`)) {
    app.log.warn({ dir: WEB_DIST_DIR }, 'no web build found; serving the API only');
    return false;
  }
  await app.register(fastifyStatic, {
    root: WEB_DIST_DIR,
    wildcard: false,
    setHeaders(res, path) {
      // Vite fingerprints everything under assets/; index.html must always be revalidated.
      res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return true;
}

/** A page route of the SPA (not the API): GET, wants HTML, outside the API prefixes. */
export function isPageRequest(req: FastifyRequest): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    !/^\/(trpc|users|healthz|readyz)(\/|$|\?)/.test(req.url) &&
    (req.headers.accept ?? '').includes('text/html')
  );
}
