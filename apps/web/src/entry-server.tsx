import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { AppRouter, ProcedurePath } from '@accounts/api';
import { dehydrate, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import { createTRPCQueryUtils } from '@trpc/react-query';
import { observable } from '@trpc/server/observable';
import { prerenderToNodeStream } from 'react-dom/static';
import { pageTitle } from './components/PageHeading';
import { translateMeta } from './i18n/meta-strings';
import { PAGE_DATA_ID, type PageData, type QueryCall, type ServerEntry } from './page-data';
import { formDone as formDoneOf, hasForms, pageFormAt, type PageFormName } from './page-forms';
import { prefetchAt } from './pages/prefetch';
import { normalizePath, pageAt, PAGE_REGISTRY } from './pages/registry';
import { Root } from './Root';
// The server renders every language (a browser loads only its page's: main.tsx).
import '@accounts/validators/all-messages';
import './i18n/all-ui-strings';

export type { PageData };

/**
 * A page rendered on the server: its HTML for `#root` and its title, or where it sends the person
 * instead (a Redirect it rendered). Waits for the page's own code (lazy pages), so the HTML holds
 * the page's content, which the browser paints before any script has run.
 */
export async function renderPage(
  href: string,
  data: PageData,
): Promise<{ html: string; title: string; redirect?: string }> {
  const titleSink: { title?: string } = {};
  const redirectSink: { to?: string } = {};
  const { prelude } = await prerenderToNodeStream(
    <Root locale={data.locale} data={data} href={href} titleSink={titleSink} redirectSink={redirectSink} />,
  );
  const html = await text(prelude as Readable);
  const { realm, productName } = data.settings;
  // A page without a heading of its own (still loading, or a redirect) is named like the header.
  const title = titleSink.title ?? pageTitle(null, realm.named ? realm.name : null, productName);
  return { html, title, redirect: redirectSink.to };
}

/** A tRPC link that answers through the gateway's own caller (the request's context), as JSON would. */
const callerLink =
  (call: QueryCall): TRPCLink<AppRouter> =>
  () =>
  ({ op }) =>
    observable((observer) => {
      // tRPC names the path as text; this client is typed with the router, so it is one of its paths.
      call(op.path as ProcedurePath, op.input).then(
        (data) => {
          observer.next({ result: { type: 'data', data: JSON.parse(JSON.stringify(data ?? null)) as unknown } });
          observer.complete();
        },
        (err: unknown) => observer.error(TRPCClientError.from(err as Error)),
      );
    });

/** The page's own queries (pages/prefetch.ts), answered now, as the app will find them. */
async function pageQueries(href: string, data: PageData, call: QueryCall) {
  const url = new URL(href, 'http://local');
  const path = normalizePath(url.pathname);
  const prefetch = prefetchAt(path);
  const { linkToken, signedOut } = pageAt(path);
  // A signed-in page asked by nobody is a redirect; a mailed link's page needs no session (the
  // link is the proof), so its check is asked for anyone, like a signed-out page's.
  if (!prefetch || (!data.user && !linkToken && !signedOut)) return undefined;
  const queryClient = new QueryClient();
  const client = createTRPCClient<AppRouter>({ links: [callerLink(call)] });
  await prefetch(createTRPCQueryUtils({ client, queryClient }), url.searchParams, data.form);
  // A refusal goes along too, as its problem's code (a mailed link that no longer works): the
  // page shows it as rendered, rather than asking again for the same refusal. (The gateway's
  // caller rejects with the API's ProblemError, which names its problem.)
  const queries = dehydrate(queryClient, { shouldDehydrateQuery: (query) => query.state.status !== 'pending' });
  queries.queries = queries.queries.flatMap((query) => {
    if (query.state.status !== 'error') return [query];
    const code = (query.state.error as { cause?: { problem?: unknown } } | null)?.cause?.problem;
    if (typeof code !== 'string') return [];
    // DehydratedState's type says Error; page-data.ts tells the app what it is.
    const error = { code } as unknown as Error;
    return [{ ...query, state: { ...query.state, error, fetchFailureReason: null } }];
  });
  return queries.queries.length > 0 ? queries : undefined;
}

/** The page's description in its language, naming the product and the realm. */
const describe = ({ locale, settings }: PageData) =>
  translateMeta(locale, settings.realm.named ? 'description' : 'descriptionUnnamed', {
    product: settings.productName,
    realm: settings.realm.name,
  });

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> block: no "<" may close it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
/** index.html's preloads of the app's first calls, whose answers come with the page. */
const PRELOADS = /\s*<link rel="preload" href="\/trpc\/[^"]*"[^>]*>/g;

/**
 * index.html with the page at `href` rendered into it (the gateway calls this for every page
 * address): its title, its HTML in `#root`, and the answers it was rendered from, which the app
 * then does not ask for again.
 */
export const renderDocument: ServerEntry['renderDocument'] = async (indexHtml, href, data, call) => {
  const queries = await pageQueries(href, data, call);
  const full: PageData = queries ? { ...data, queries } : data;
  const page = await renderPage(href, full);
  if (page.redirect !== undefined) return { redirect: page.redirect };
  return {
    html: indexHtml
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace(
        /<meta\s+name="description"\s+content="[^"]*"/,
        () => `<meta name="description" content="${escapeHtml(describe(full))}"`,
      )
      .replace(PRELOADS, '')
      .replace(
        '<div id="root"></div>',
        () =>
          `<div id="root">${page.html}</div><script id="${PAGE_DATA_ID}" type="application/json">${scriptJson(full)}</script>`,
      ),
  };
};

export const formPages: ServerEntry['formPages'] = PAGE_REGISTRY.map((page) => page.path).filter(hasForms);

export const pageForm: ServerEntry['pageForm'] = pageFormAt;

export const formDone: ServerEntry['formDone'] = (name, result, href) =>
  formDoneOf(name as PageFormName, result as never, href);
