import type autocannon from 'autocannon';
import type { Req } from './traffic.js';

/** The signed-out pages of the page scenario, as a visitor opens them. */
export const SIGNED_OUT_PAGES = ['/login', '/register'] as const;

// What a browser sends for a page it navigates to (Chrome's headers, less the client hints), and
// no cookie: someone not signed in. The same headers ask for the script file, so both are
// compressed alike.
const LANGUAGES = ['en-US,en;q=0.9', 'de-DE,de;q=0.9,en;q=0.8', 'fr-FR,fr;q=0.9,en;q=0.8'] as const;
const browserHeaders = (language: string) => ({
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': language,
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
});

export const browserGet = (path: string, language: string = LANGUAGES[0]): Req => ({
  method: 'GET',
  path,
  headers: browserHeaders(language),
});

/** Requests going round `paths` and the three languages, one combination per request. */
export function browserRequests(paths: readonly string[]): autocannon.Request[] {
  let turn = 0;
  return [
    {
      setupRequest: (req) => {
        const n = turn++;
        return { ...req, ...browserGet(paths[n % paths.length]!, LANGUAGES[n % LANGUAGES.length]) };
      },
    },
  ];
}

/**
 * The page's own script (`<script type="module" src="/assets/index-….js">`, the app's entry and
 * its largest file that every page loads), found in the page as a browser gets it.
 */
export async function pageScript(baseUrl: string, page: string = SIGNED_OUT_PAGES[0]): Promise<string> {
  const { headers } = browserGet(page);
  // fetch decompresses the answer and sends its own Accept-Encoding: only what the page is matters here.
  const res = await fetch(new URL(page, baseUrl), {
    headers: { accept: headers!.accept!, 'accept-language': headers!['accept-language']! },
    redirect: 'manual',
  });
  const html = await res.text();
  if (res.status !== 200) throw new Error(`GET ${page}: ${res.status}, not a page`);
  const src = /<script[^>]*\btype="module"[^>]*\bsrc="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  if (!src) throw new Error(`GET ${page}: no module script in the page (is the web app built?)`);
  return src;
}

/** The two scenarios' names, as the report finds them. */
export const PAGE_SCENARIO = `signed-out page (${SIGNED_OUT_PAGES.join(', ')})`;
export const STATIC_SCENARIO = 'static script file';
