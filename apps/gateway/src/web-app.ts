import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import { LOCALES, type Locale } from '@accounts/validators';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { localeOf } from './locale.js';

// The web app's build: beside the gateway in the monorepo (apps/web/dist), from src/ or dist/ alike.
export const WEB_DIST_DIR = process.env.WEB_DIST_DIR ?? fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Where password managers send people to change a password (W3C "A Well-Known URL for Changing Passwords"). */
export const CHANGE_PASSWORD_PAGE = '/settings';

type PageSender = (req: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * index.html in each language: `<html lang>` and the no-JavaScript explanation in the language
 * the request asks for (the build holds all three), compressed once at start-up.
 */
function localizedPages(indexHtml: string): PageSender {
  const pages = new Map(
    LOCALES.map((locale) => {
      const html = indexHtml
        .replace(/<html lang="\w+">/, `<html lang="${locale}">`)
        .replace(/<(h1|p) lang="(\w+)">[\s\S]*?<\/\1>\s*/g, (block, _tag, lang: string) => (lang === locale ? block.replace(` lang="${lang}"`, '') : ''));
      const plain = Buffer.from(html);
      return [locale, { identity: plain, br: brotliCompressSync(plain), gzip: gzipSync(plain) }] as const;
    }),
  );
  return (req, reply) => {
    const locale: Locale = localeOf(req);
    const encoding = (new Negotiator({ headers: { 'accept-encoding': req.headers['accept-encoding'] ?? '' } }).encoding(['br', 'gzip', 'identity']) ?? 'identity') as 'br' | 'gzip' | 'identity';
    const page = pages.get(locale)!;
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-language', locale)
      .header('vary', 'accept-encoding, accept-language')
      .header('cache-control', 'no-cache')
      .send(page[encoding]);
  };
}

/** Serves the built single-page app; returns how to answer a page address, or null without a build. */
export async function registerWebApp(app: FastifyInstance, dir = WEB_DIST_DIR): Promise<PageSender | null> {
  if (!existsSync(`${dir}/index.html`)) {
    app.log.warn({ dir }, 'no web build found; serving the API only');
    return null;
  }
  await app.register(fastifyStatic, {
    root: dir,
    wildcard: false,
    // Pages (the root included) are index.html in the request's language, sent by the page route.
    index: false,
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
  return localizedPages(readFileSync(`${dir}/index.html`, 'utf8'));
}

/** A page route of the SPA (not the API): GET, wants HTML, outside the API prefixes. */
export function isPageRequest(req: FastifyRequest): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    !/^\/(trpc|users|healthz|readyz)(\/|$|\?)/.test(req.url) &&
    (req.headers.accept ?? '').includes('text/html')
  );
}
