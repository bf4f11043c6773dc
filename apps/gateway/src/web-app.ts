import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// The web app's build: beside the gateway in the monorepo (apps/web/dist), from src/ or dist/ alike.
export const WEB_DIST_DIR = process.env.WEB_DIST_DIR ?? fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Where password managers send people to change a password (W3C "A Well-Known URL for Changing Passwords"). */
export const CHANGE_PASSWORD_PAGE = '/settings';

/** Serves the built single-page app; returns whether there was a build to serve. */
export async function registerWebApp(app: FastifyInstance, dir = WEB_DIST_DIR): Promise<boolean> {
  if (!existsSync(`${dir}/index.html`)) {
    app.log.warn({ dir }, 'no web build found; serving the API only');
    return false;
  }
  await app.register(fastifyStatic, {
    root: dir,
    wildcard: false,
    // The build writes a .br and a .gz beside each text file; the one the browser accepts is sent
    // as is (no compression work per request), else the plain file.
    preCompressed: true,
    // Source maps stay with the build (for error tracking), never served: they would publish the source.
    allowedPath: (path) => !path.endsWith('.map'),
    setHeaders(res, path) {
      // Vite fingerprints everything under assets/; index.html and the favicon must be revalidated.
      res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/.well-known/change-password', async (_req, reply) => reply.redirect(CHANGE_PASSWORD_PAGE, 302));
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
