import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { prerenderToNodeStream } from 'react-dom/static';
import { pageTitle } from './components/PageHeading';
import { PAGE_DATA_ID, type PageData, type ServerEntry } from './page-data';
import { Root } from './Root';

export type { PageData };

/**
 * A page rendered on the server: its HTML for `#root` and its title. Waits for the page's own
 * code (lazy pages), so the HTML holds the page's content, which the browser paints before any
 * script has run.
 */
export async function renderPage(href: string, data: PageData): Promise<{ html: string; title: string }> {
  const titleSink: { title?: string } = {};
  const { prelude } = await prerenderToNodeStream(
    <Root locale={data.locale} data={data} href={href} titleSink={titleSink} />,
  );
  const html = await text(prelude as Readable);
  const { realm, productName } = data.settings;
  // A page without a heading of its own (still loading, or a redirect) is named like the header.
  return { html, title: titleSink.title ?? pageTitle(null, realm.isDefault ? null : realm.name, productName) };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> block: no "<" may close it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
/** index.html's preload of a procedure's answer (the app's first calls, asked for beside the scripts). */
const preloadOf = (procedure: string) =>
  new RegExp(`\\s*<link rel="preload" href="/trpc/${procedure.replace('.', '\\.')}"[^>]*>`);

/**
 * index.html with the page at `href` rendered into it (the gateway calls this for every page
 * address): its title, its HTML in `#root`, and the answers it was rendered from, which the app
 * then does not ask for again (their preloads go).
 */
export const renderDocument: ServerEntry['renderDocument'] = async (indexHtml, href, data) => {
  const page = await renderPage(href, data);
  return (
    indexHtml
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace(preloadOf('account.settings'), '')
      // Nobody signed in is left for the app to learn (a 401 from account.me): that preload stays.
      .replace(preloadOf('account.me'), (link) => (data.user ? '' : link))
      .replace(
        '<div id="root"></div>',
        () =>
          `<div id="root">${page.html}</div><script id="${PAGE_DATA_ID}" type="application/json">${scriptJson(data)}</script>`,
      )
  );
};
