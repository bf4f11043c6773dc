import type { Locale } from '@accounts/validators';
import type { RouterOutputs } from './trpc';

// What the server build hands over to the gateway and the browser, and what the gateway hands it
// back: the gateway imports these types from here, so both sides describe a page the same way.

/**
 * What the gateway already knows when it sends a page: the realm's settings and, when the
 * request carries a valid session, its user. It renders the page with them and sends them
 * along, so the app starts from the same answers instead of asking again.
 */
export interface PageData {
  locale: Locale;
  settings: RouterOutputs['account']['settings'];
  user: RouterOutputs['account']['me']['user'] | null;
  /**
   * The user's two-step state (account.me's `twoStep`), when the gateway sends it along: without
   * it, the pages that show it ask account.me once they run (session.ts, useTwoStep).
   */
  twoStep?: RouterOutputs['account']['me']['twoStep'];
}

/** The element of a rendered page that holds its PageData (JSON), read when the app starts. */
export const PAGE_DATA_ID = 'page-data';

/** The server build's entry (entry-server.tsx, built to dist-server/entry-server.js), as the gateway loads it. */
export interface ServerEntry {
  /** index.html (the gateway's copy, in the request's language) with the page at `href` rendered into it. */
  renderDocument(indexHtml: string, href: string, data: PageData): Promise<string>;
}
