import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { prerenderToNodeStream } from 'react-dom/static';
import { pageTitle } from './components/PageHeading';
import type { PageData } from './Providers';
import { Root } from './Root';

export type { PageData };

/**
 * A page rendered on the server (the gateway calls this for every page address): its HTML for
 * `#root` and its title. Waits for the page's own code (lazy pages), so the HTML holds the
 * page's content, which the browser paints before any script has run.
 */
export async function renderPage(href: string, data: PageData): Promise<{ html: string; title: string }> {
  const titleSink: { title?: string } = {};
  const { prelude } = await prerenderToNodeStream(<Root locale={data.locale} data={data} href={href} titleSink={titleSink} />);
  const html = await text(prelude as Readable);
  const { realm, productName } = data.settings;
  // A page without a heading of its own (still loading, or a redirect) is named like the header.
  return { html, title: titleSink.title ?? pageTitle(null, realm.isDefault ? null : realm.name, productName) };
}
