import type { ProcedurePath } from '@accounts/api';
import type { Locale } from '@accounts/validators';
import type { DehydratedState } from '@tanstack/react-query';
import type { Problem, RouterOutputs } from './trpc';

// What the server build hands over to the gateway and the browser, and what the gateway hands it
// back: the gateway imports these types from here, so both sides describe a page the same way.

/** Optional data for the next page, e.g. the result of what was just done (kept in history). */
export type PageState = Record<string, unknown> | null;

/**
 * What a form posted to its page without scripts came to, for the page rendered in answer: the
 * values entered (never a password, code or token), and the refusal, or the result the page
 * shows at once (a set-up's secret, new recovery codes), as the app would have them after a submit.
 */
export interface FormOutcome {
  /** The form's name (its `_form` field, a key of PAGE_FORMS). */
  form: string;
  values: Record<string, string>;
  problem?: Problem;
  result?: unknown;
}

/**
 * What the gateway already knows when it sends a page: the realm's settings and the signed-in
 * user (null: nobody). It renders the page with them and sends them along, so the app starts from
 * the same answers instead of asking again.
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
  /** The rest of account.me (`security`: when the password was set, the suggestion of a second factor), sent along with `twoStep`. */
  security?: RouterOutputs['account']['me']['security'];
  /**
   * The browser's time zone (an IANA name) the page's times and days were said in: its
   * `time_zone` cookie, which the app writes once it runs (relative-time.tsx); absent: UTC.
   */
  timeZone?: string;
  /** The answer to a form posted to this page without scripts. */
  form?: FormOutcome;
  /** What the page before handed this one (history state), across a redirect after a form post. */
  state?: PageState;
  /**
   * The page's other queries, answered on the server (its PAGE_PREFETCH, pages/prefetch.ts); a
   * refused one has `{ code }`, its problem's code, as its `error`.
   */
  queries?: DehydratedState;
}

/** The element of a rendered page that holds its PageData (JSON), read when the app starts. */
export const PAGE_DATA_ID = 'page-data';

/** Calls a query procedure of the router for the page being rendered, with the request's own context. */
export type QueryCall = (path: ProcedurePath, input: unknown) => Promise<unknown>;

/** Where a form's success leads: another page (with what it hands that page), or null: the same page, showing the result. */
export type FormDone = { to: string; state?: PageState } | null;

/** One form of a page, as the gateway completes it without scripts. */
export interface PageFormTarget {
  /** The procedure it calls, with the form's fields as input. */
  procedure: ProcedurePath;
  /** Refusals that are the form's next step, not a failure (the page shows it, status 200). */
  continues: readonly string[];
  /** The answer is a file to keep, sent as is. */
  download: boolean;
}

/** The server build's entry (entry-server.tsx, built to dist-server/entry-server.js), as the gateway loads it. */
export interface ServerEntry {
  /**
   * index.html (the gateway's copy, in the request's language) with the page at `href` rendered
   * into it; or where the page sends the person instead (a signed-in page to a signed-out one).
   */
  renderDocument(
    indexHtml: string,
    href: string,
    data: PageData,
    call: QueryCall,
  ): Promise<{ html: string } | { redirect: string }>;
  /** The addresses of the pages that have forms: the gateway takes their posts at these routes. */
  formPages: readonly string[];
  /** The form `name` of the page at `href`, or null when that page has no such form. */
  pageForm(href: string, name: string): PageFormTarget | null;
  /** Where the form's success leads, as the app would go. */
  formDone(name: string, result: unknown, href: string): FormDone;
}
