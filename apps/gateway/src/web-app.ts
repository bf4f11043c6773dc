import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import { LOCALES, type Locale } from '@accounts/validators';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { localeOf } from './locale.js';
import { contextFor, type Services } from './request-context.js';
import { pathOf } from './request-target.js';
// What the web build's server entry gives the gateway, and the answers a page is rendered from:
// the web app's own types (nothing of it runs here but its build).
import type { PageData, ServerEntry } from '../../web/src/page-data.js';

// The web app's build: beside the gateway in the monorepo (apps/web/dist), from src/ or dist/ alike
// (the setting WEB_DIST_DIR names another).
export const WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Where password managers send people to change a password (W3C "A Well-Known URL for Changing Passwords"). */
export const CHANGE_PASSWORD_PAGE = '/settings';

type PageSender = (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * The page for this request, rendered: the realm's settings and the signed-in user (if the
 * request carries a valid session) come from the same procedures the app calls, as JSON exactly
 * as the app would receive them. Null when there is nothing to render with (a settings call
 * that failed): the app then draws the page itself.
 */
async function renderedPage(
  req: FastifyRequest,
  reply: FastifyReply,
  services: Services,
  renderer: ServerEntry,
  indexHtml: string,
  locale: Locale,
) {
  const caller = services.createCaller(contextFor(req, reply, services).ctx);
  try {
    const settings = await caller.account.settings();
    // Anything but a user (nobody signed in, or a failure) is left for the app to ask itself.
    const me = await caller.account.me().catch(() => null);
    const signedIn = me ? { user: me.user, twoStep: me.twoStep } : { user: null };
    const data = JSON.parse(JSON.stringify({ locale, settings, ...signedIn })) as PageData;
    return { html: await renderer.renderDocument(indexHtml, req.url, data), data };
  } catch (err) {
    req.log.warn({ err: { message: (err as Error).message } }, 'page not rendered on the server; the app draws it');
    return null;
  }
}

/**
 * index.html in the language the request asks for: `<html lang>`, the no-JavaScript explanation
 * (the build holds all three) and, with the server build, the page itself, rendered.
 */
function localizedPages(indexHtml: string, services: Services, renderer: ServerEntry | null): PageSender {
  const pages = new Map(
    LOCALES.map((locale) => [
      locale,
      indexHtml
        .replace(/<html lang="\w+">/, `<html lang="${locale}">`)
        .replace(/<(h1|p) lang="(\w+)">[\s\S]*?<\/\1>\s*/g, (block, _tag, lang: string) =>
          lang === locale ? block.replace(` lang="${lang}"`, '') : '',
        ),
    ]),
  );
  return async (req, reply) => {
    const locale: Locale = localeOf(req);
    const localized = pages.get(locale)!;
    const page = renderer && (await renderedPage(req, reply, services, renderer, localized, locale));
    const html = page?.html ?? localized;
    const encoding = (new Negotiator({ headers: { 'accept-encoding': req.headers['accept-encoding'] ?? '' } }).encoding(
      ['br', 'gzip', 'identity'],
    ) ?? 'identity') as 'br' | 'gzip' | 'identity';
    const plain = Buffer.from(html);
    // A page is a few KB: compressed per request at a fast setting (well under a millisecond).
    const body =
      encoding === 'br'
        ? brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
        : encoding === 'gzip'
          ? gzipSync(plain)
          : plain;
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return (
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-language', locale)
        .header('vary', 'accept-encoding, accept-language, cookie')
        // Rendered for this person (their realm, their session): never kept by a shared cache, and
        // with their name and email in it, by no cache at all (a shared computer's back button).
        .header('cache-control', page?.data.user ? 'no-store' : 'private, no-cache')
        .send(body)
    );
  };
}

/** Serves the built single-page app; returns how to answer a page address, or null without a build. */
export async function registerWebApp(
  app: FastifyInstance,
  services: Services,
  dir = WEB_DIST_DIR,
): Promise<PageSender | null> {
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
  // The server build beside the browser build (apps/web/dist-server); without it pages are sent unrendered.
  const serverEntry = join(dir, '..', 'dist-server', 'entry-server.js');
  const renderer = existsSync(serverEntry) ? ((await import(pathToFileURL(serverEntry).href)) as ServerEntry) : null;
  if (!renderer)
    app.log.warn({ serverEntry }, 'no server build of the web app found; pages are drawn by the browser alone');
  return localizedPages(readFileSync(`${dir}/index.html`, 'utf8'), services, renderer);
}

// The gateway's own prefixes, not a list of pages: every other address is the app's, which answers
// one it does not know with its own "not found" page (its pages are listed once, in the web app).
const NOT_PAGES = /^\/(trpc|users|healthz|readyz|openapi\.json)(\/|$)/;
// Media types are case-insensitive (RFC 9110 §8.3.1).
const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? '').toLowerCase().includes('text/html');

/** A page route of the SPA (not the API): GET, wants HTML, outside the API prefixes. */
export function isPageRequest(req: FastifyRequest): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !NOT_PAGES.test(pathOf(req)) && wantsHtml(req);
}

/**
 * A page's form posted by the browser itself, before the app took the page over (forms are
 * method="post", so nothing typed ends up in an address). Nothing is done with the fields; the
 * page is loaded again (303), where the app handles the form.
 */
export function isEarlyFormPost(req: FastifyRequest): boolean {
  return req.method === 'POST' && !NOT_PAGES.test(pathOf(req)) && wantsHtml(req);
}
