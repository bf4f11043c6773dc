import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import { LOCALES, type Locale } from '@accounts/validators';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { ProblemError, type RequestContext } from '@accounts/api';
import { callProcedure } from './form-adapter.js';
import { procedureAt } from './procedures.js';
import { localeOf } from './locale.js';
import { contextFor, type Services } from './request-context.js';
import { pathOf } from './request-target.js';
import { isSecureRequest } from './secure-request.js';
import { sessionTokenOf } from './session-transport.js';
import { timeZoneOf } from './time-zone.js';
import { PageBody, SharedPages, type Encoding } from './shared-pages.js';
// What the web build's server entry gives the gateway, and the answers a page is rendered from:
// the web app's own types (nothing of it runs here but its build).
import type {
  FormDone,
  FormOutcome,
  PageData,
  PageFormTarget,
  PageState,
  QueryCall,
  ServerEntry,
} from '@accounts/web/contract';

// The web app's build: beside the gateway in the monorepo (apps/web/dist), from src/ or dist/ alike
// (the setting WEB_DIST_DIR names another).
export const WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Where password managers send people to change a password (W3C "A Well-Known URL for Changing Passwords"). */
export const CHANGE_PASSWORD_PAGE = '/settings';

/** How the gateway answers page addresses: a page asked for, and a page's form posted to it. */
export interface Pages {
  /** The addresses of the pages that have forms (none without a server build): page-posts.ts routes them. */
  formPages: readonly string[];
  send(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** What the page at `href` makes of form `name` (null: it has no such form); null without a server build. */
  formOf(href: string, name: string): PageFormTarget | null;
  formDone(name: string, result: unknown, href: string): FormDone;
  /** The page rendered with what a form posted to it came to, with this status. */
  sendAfterForm(
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: RequestContext,
    status: number,
    form: FormOutcome,
  ): Promise<FastifyReply>;
}

/** What a rendered page needs of the request besides its address. */
interface RenderInput {
  ctx: RequestContext;
  form?: FormOutcome;
  state?: PageState;
}

/**
 * The page for this request, rendered: the realm's settings, the signed-in user (if the request
 * carries a valid session) and the page's own queries come from the same procedures the app
 * calls, as JSON exactly as the app would receive them. Null when there is nothing to render with
 * (a settings call that failed): the app then draws the page itself.
 */
async function renderedPage(
  req: FastifyRequest,
  services: Services,
  renderer: ServerEntry,
  indexHtml: string,
  { ctx, form, state }: RenderInput,
) {
  const caller = services.createCaller(ctx);
  try {
    const settings = await caller.account.settings();
    // Nobody signed in is an answer too; any other failure leaves the page to the app.
    const me = await caller.account.me().catch((err: unknown) => {
      if (err instanceof ProblemError && err.problem === 'unauthenticated') return null;
      throw err;
    });
    const signedIn = me ? { user: me.user, twoStep: me.twoStep, security: me.security } : { user: null };
    // Only a signed-in page shows times; a signed-out one is kept for everyone (never one browser's zone).
    const timeZone = me ? timeZoneOf(req) : undefined;
    const data = JSON.parse(
      JSON.stringify({
        locale: ctx.locale,
        settings,
        ...signedIn,
        ...(timeZone && { timeZone }),
        ...(form && { form }),
        ...(state && { state }),
      }),
    ) as PageData;
    const call: QueryCall = (path, input) => {
      // Only what a page reads: a query of the router, never a mutation.
      if (procedureAt(services.router, path)?.type !== 'query') return Promise.reject(new ProblemError('not_found'));
      return callProcedure(services, path, ctx, input);
    };
    const page = await renderer.renderDocument(indexHtml, req.url, data, call);
    return { ...page, data };
  } catch (err) {
    req.log.warn({ err: { message: (err as Error).message } }, 'page not rendered on the server; the app draws it');
    return null;
  }
}

// What a page hands the next one across a redirect after a form (the app's history state):
// a minute's cookie, read once by the next page. Never a secret: results that are, are shown at once.
// Over https (isSecureRequest, as the session's) the __Host- prefix: Secure, Path=/, no Domain.
const stateCookie = (req: FastifyRequest) => (isSecureRequest(req) ? '__Host-page_state' : 'page_state');

function takeState(req: FastifyRequest, reply: FastifyReply): PageState | undefined {
  const raw = req.cookies[stateCookie(req)];
  if (raw === undefined) return undefined;
  reply.clearCookie(stateCookie(req), { path: '/', secure: isSecureRequest(req) });
  try {
    const state: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString());
    return state && typeof state === 'object' && !Array.isArray(state) ? (state as PageState) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a form's success leads, the state it hands that page riding along. */
export function redirectAfterForm(req: FastifyRequest, reply: FastifyReply, done: NonNullable<FormDone>) {
  if (done.state)
    reply.setCookie(stateCookie(req), Buffer.from(JSON.stringify(done.state)).toString('base64url'), {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: isSecureRequest(req),
      maxAge: 60,
    });
  return reply.redirect(sameSitePath(done.to), 303);
}

/** A path on this site: never another host (`//evil.example`, `/\\evil.example`). */
const sameSitePath = (to: string) => (/^\/(?![/\\])/.test(to) ? to : '/');

/**
 * `choose` of a request, remembered by the value of one of its headers: browsers send a handful of
 * values, so the first hundred seen are kept; any other is worked out each time.
 */
function byHeader<T>(name: string, choose: (req: FastifyRequest) => T): (req: FastifyRequest) => T {
  const seen = new Map<string, T>();
  return (req) => {
    const value = req.headers[name];
    if (typeof value !== 'string') return choose(req);
    let chosen = seen.get(value);
    if (chosen === undefined) {
      chosen = choose(req);
      if (seen.size < 100) seen.set(value, chosen);
    }
    return chosen;
  };
}

const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];
// negotiator 1.x takes the server's order for encodings the browser accepts alike ("gzip, deflate,
// br": brotli, the smaller); its typings predate the option.
type EncodingChoice = (available: Encoding[], options: { preferred: Encoding[] }) => string | undefined;

const pageEncoding = byHeader('accept-encoding', (req): Encoding => {
  const negotiator = new Negotiator({ headers: { 'accept-encoding': req.headers['accept-encoding'] ?? '' } });
  return ((negotiator.encoding as EncodingChoice)(ENCODINGS, { preferred: ENCODINGS }) ?? 'identity') as Encoding;
});
/** The request's language, as its context has it (localeOf), for a page kept for everyone. */
const pageLocale = byHeader('accept-language', localeOf);

/** A page's HTML, compressed as the browser accepts it, with the headers of a page. */
function sendHtml(req: FastifyRequest, reply: FastifyReply, body: PageBody, locale: Locale, personal: boolean) {
  const encoding = pageEncoding(req);
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return (
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-language', locale)
      .header('vary', 'accept-encoding, accept-language, cookie')
      // Rendered for this person (their realm, their session): never kept by a shared cache, and
      // with their name and email in it, by no cache at all (a shared computer's back button).
      .header('cache-control', personal ? 'no-store' : 'private, no-cache')
      .send(body.in(encoding))
  );
}

// Most addresses have no query at all: no URL to parse for them.
const hasToken = (url: string) => url.includes('?') && new URL(url, 'http://local').searchParams.has('token');

/** The web build being served: index.html names every hashed asset, and the server build renders. */
export function buildIdOf(indexHtml: string, serverEntrySource: string | null): string {
  return createHash('sha256')
    .update(indexHtml)
    .update(serverEntrySource ?? '')
    .digest('base64url')
    .slice(0, 16);
}

/**
 * index.html in the language the request asks for (`<html lang>`) and, with the server build,
 * the page itself, rendered.
 */
function localizedPages(indexHtml: string, services: Services, renderer: ServerEntry | null, build: string): Pages {
  const pages = new Map(
    LOCALES.map((locale) => [locale, indexHtml.replace(/<html lang="\w+">/, `<html lang="${locale}">`)]),
  );
  // What the app draws itself when a page is not rendered: the same for everyone in a language.
  const unrendered = new Map([...pages].map(([locale, html]) => [locale, new PageBody(html)]));
  const shared = new SharedPages();
  const redirect = (req: FastifyRequest, reply: FastifyReply, to: string) =>
    reply.redirect(sameSitePath(to), req.method === 'POST' ? 303 : 302);

  const render = async (req: FastifyRequest, reply: FastifyReply, status: number, input: RenderInput) => {
    const { locale } = input.ctx;
    const localized = pages.get(locale)!;
    const page = renderer && (await renderedPage(req, services, renderer, localized, input));
    if (page && 'redirect' in page) return redirect(req, reply, page.redirect);
    // A form's answer is never kept (it may hold what was just done), nor a mailed link's page (its form holds the token).
    const personal = Boolean(page?.data.user || input.form || hasToken(req.url));
    return sendHtml(
      req,
      reply.code(status),
      page ? new PageBody(page.html) : unrendered.get(locale)!,
      locale,
      personal,
    );
  };

  /**
   * A page for nobody signed in, the same for everyone: from the shared pages, or rendered into
   * them. A kept page needs nothing of the request but its realm and language.
   */
  const sendShared = async (req: FastifyRequest, reply: FastifyReply) => {
    const locale = pageLocale(req);
    // Each start reads its build once, so its pages are its own; the build is in the key all the
    // same, so that no page rendered by another build is ever sent for this one.
    const key = `${build} ${req.realm!.slug} ${locale} ${req.url}`;
    const page =
      shared.get(key) ??
      (await shared.render(key, async () => {
        const { ctx } = contextFor(req, reply, services);
        const rendered = renderer && (await renderedPage(req, services, renderer, pages.get(locale)!, { ctx }));
        if (!rendered) return null;
        return 'redirect' in rendered ? { redirect: rendered.redirect } : { body: new PageBody(rendered.html) };
      }));
    // A page the server could not render (the app draws it) is not kept: the next request tries again.
    if (!page) return sendHtml(req, reply, unrendered.get(locale)!, locale, false);
    if ('redirect' in page) return redirect(req, reply, page.redirect);
    return sendHtml(req, reply, page.body, locale, false);
  };

  return {
    formPages: renderer?.formPages ?? [],
    send: (req, reply) => {
      // No session, no state handed over, no mailed link's token: the page everyone gets.
      if (sessionTokenOf(req) === null && req.cookies[stateCookie(req)] === undefined && !hasToken(req.url))
        return sendShared(req, reply);
      const { ctx } = contextFor(req, reply, services);
      return render(req, reply, 200, { ctx, state: takeState(req, reply) });
    },
    formOf: (href, name) => renderer?.pageForm(href, name) ?? null,
    formDone: (name, result, href) => renderer?.formDone(name, result, href) ?? null,
    sendAfterForm: (req, reply, ctx, status, form) => render(req, reply, status, { ctx, form }),
  };
}

/** Serves the built single-page app; returns how to answer a page address, or null without a build. */
export async function registerWebApp(
  app: FastifyInstance,
  services: Services,
  dir = WEB_DIST_DIR,
): Promise<Pages | null> {
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
    // Source maps stay with the build (for error tracking), never served: they would publish the
    // source. No route is made for them, so one is not found (404) like any file that is not there.
    globIgnore: ['**/*.map'],
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
  const indexHtml = readFileSync(`${dir}/index.html`, 'utf8');
  const build = buildIdOf(indexHtml, renderer ? readFileSync(serverEntry, 'utf8') : null);
  return localizedPages(indexHtml, services, renderer, build);
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

/** A page's form posted by the browser itself (no scripts, or before they ran): see page-posts.ts. */
export function isPagePost(req: FastifyRequest): boolean {
  return req.method === 'POST' && !NOT_PAGES.test(pathOf(req)) && wantsHtml(req);
}
