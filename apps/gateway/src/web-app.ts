import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { DEFAULT_REALM_SLUG } from '@accounts/api';
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

/** The page frame's words in one language, as the web build writes them (apps/web/src/page-frame.ts). */
interface FrameWords {
  realmLabel: string;
  skipToContent: string;
  mainNav: string;
  titles: Record<string, string>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The app's frame for a page, as the app itself draws it before it knows more: the product, the
 * realm when it is not the default one, an empty navigation, and the page's heading. Sent inside
 * index.html, it is painted with the first bytes; the app replaces it with the same frame.
 */
function frameHtml(words: FrameWords, path: string, productName: string, realm: { slug: string; name: string } | undefined) {
  const realmName = realm && realm.slug !== DEFAULT_REALM_SLUG ? realm.name : null;
  const title = words.titles[path.length > 1 ? path.replace(/\/+$/, '') : path];
  const brand =
    `<a href="/" class="product-name">${escapeHtml(productName)}</a>` +
    (realmName ? ` <span class="realm"><span class="visually-hidden">${escapeHtml(words.realmLabel)}</span><span class="realm-name">${escapeHtml(realmName)}</span></span>` : '');
  return {
    title: [title, realmName, productName].filter(Boolean).map((s) => escapeHtml(s!)).join(' · '),
    body:
      `<a class="skip-link" href="#main">${escapeHtml(words.skipToContent)}</a>` +
      `<header class="site-header"><p class="brand">${brand}</p><nav aria-label="${escapeHtml(words.mainNav)}" aria-busy="true"></nav></header>` +
      `<main id="main" class="page" tabindex="-1">${title ? `<h1 tabindex="-1">${escapeHtml(title)}</h1>` : ''}</main>`,
  };
}

/**
 * index.html in the language the request asks for: `<html lang>`, the no-JavaScript explanation
 * (the build holds all three) and, when the build wrote frame.json, the page's frame.
 */
function localizedPages(indexHtml: string, frames: Record<string, FrameWords> | null, productName: string): PageSender {
  const pages = new Map(
    LOCALES.map((locale) => [
      locale,
      indexHtml
        .replace(/<html lang="\w+">/, `<html lang="${locale}">`)
        .replace(/<(h1|p) lang="(\w+)">[\s\S]*?<\/\1>\s*/g, (block, _tag, lang: string) => (lang === locale ? block.replace(` lang="${lang}"`, '') : '')),
    ]),
  );
  return (req, reply) => {
    const locale: Locale = localeOf(req);
    let html = pages.get(locale)!;
    const words = frames?.[locale];
    if (words) {
      const frame = frameHtml(words, req.url.split('?')[0]!, productName, req.realm);
      html = html.replace(/<title>[^<]*<\/title>/, () => `<title>${frame.title}</title>`).replace('<div id="root"></div>', () => `<div id="root">${frame.body}</div>`);
    }
    const encoding = (new Negotiator({ headers: { 'accept-encoding': req.headers['accept-encoding'] ?? '' } }).encoding(['br', 'gzip', 'identity']) ?? 'identity') as 'br' | 'gzip' | 'identity';
    const plain = Buffer.from(html);
    // A page is about 2 KB: compressed per request at a fast setting (well under a millisecond).
    const body = encoding === 'br' ? brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }) : encoding === 'gzip' ? gzipSync(plain) : plain;
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-language', locale)
      .header('vary', 'accept-encoding, accept-language')
      .header('cache-control', 'no-cache')
      .send(body);
  };
}

/** Serves the built single-page app; returns how to answer a page address, or null without a build. */
export async function registerWebApp(app: FastifyInstance, productName: string, dir = WEB_DIST_DIR): Promise<PageSender | null> {
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
  const frames = existsSync(`${dir}/frame.json`) ? (JSON.parse(readFileSync(`${dir}/frame.json`, 'utf8')) as Record<string, FrameWords>) : null;
  return localizedPages(readFileSync(`${dir}/index.html`, 'utf8'), frames, productName);
}

/** A page route of the SPA (not the API): GET, wants HTML, outside the API prefixes. */
export function isPageRequest(req: FastifyRequest): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    !/^\/(trpc|users|healthz|readyz)(\/|$|\?)/.test(req.url) &&
    (req.headers.accept ?? '').includes('text/html')
  );
}
