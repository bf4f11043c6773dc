import {
  createContext,
  useContext,
  useEffect,
  useSyncExternalStore,
  type AnchorHTMLAttributes,
  type MouseEvent,
} from 'react';
import type { PageState } from './page-data';

// A history-API router for a handful of fixed paths; the gateway answers every path with
// index.html, so a reload or a shared link lands on the same page.

const listeners = new Set<() => void>();
let pushCount = 0;

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

const currentHref = () => window.location.pathname + window.location.search;

export type { PageState };

interface NavigateOptions {
  /** Replace the current history entry (Back then skips it), e.g. after signing in. */
  replace?: boolean;
  state?: PageState;
  /** A redirect the person did not ask for: the new page does not take focus. */
  silent?: boolean;
}

/** Addresses the gateway answers itself, never a page of the app: a sign-in to another app goes on there. */
const SERVER_ONLY = /^\/oauth2\//;

/**
 * The server address this page is already leaving for. A sign-in's success navigates there and the
 * Redirect its new session renders asks again: a second load of a one-time address (an app's
 * sign-in interaction) would find it finished and show "expired". Cleared when the page comes
 * back from the back-forward cache.
 */
let leavingFor: string | null = null;
if (typeof window !== 'undefined') window.addEventListener('pageshow', () => (leavingFor = null));

export function navigate(to: string, { replace = false, state = null, silent = false }: NavigateOptions = {}) {
  if (SERVER_ONLY.test(to)) {
    if (leavingFor === to) return;
    leavingFor = to;
    window.location[replace ? 'replace' : 'assign'](to);
    return;
  }
  if (to === currentHref() && state === null) return;
  if (replace) window.history.replaceState(state, '', to);
  else window.history.pushState(state, '', to);
  if (!silent) {
    pushCount += 1;
    window.scrollTo?.(0, 0);
  }
  for (const listener of listeners) listener();
}

/** True once the user has moved between pages, so a new page may take focus. */
export const hasNavigated = () => pushCount > 0;

const currentState = (): PageState => (window.history.state as PageState) ?? null;

/** The address a page is rendered for on the server (null in the browser, which has its own). */
export const ServerHrefContext = createContext<string | null>(null);
/**
 * The state the page was rendered with: what the page before handed it across a redirect after a
 * form posted without scripts (PageData's `state`), on the server and in the hydration alike.
 */
export const RenderedStateContext = createContext<PageState>(null);
/** On the server: where a page sends the person instead (a Redirect rendered), for the gateway to answer with. */
export const ServerRedirectContext = createContext<{ to?: string } | null>(null);

export function useLocation() {
  const serverHref = useContext(ServerHrefContext);
  const renderedState = useContext(RenderedStateContext);
  const href = useSyncExternalStore(subscribe, currentHref, () => serverHref ?? currentHref());
  // The server renders with the state it was handed; hydration starts from the same and then
  // reads the browser's (main.tsx puts that state in history, and a reload keeps it), so the
  // server's HTML and the first render agree.
  const state = useSyncExternalStore(subscribe, currentState, () => renderedState);
  const url = new URL(href, 'http://local');
  return { path: url.pathname, search: url.searchParams, state };
}

/** The page's address as the browser shows it: its path and query. */
export function useHref() {
  const { path, search } = useLocation();
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** The sign-in page, returning to `returnTo` after; `expired` has it say the session ended. */
export function loginPathFor(returnTo: string, { expired = false }: { expired?: boolean } = {}) {
  return `/login?next=${encodeURIComponent(returnTo)}${expired ? '&expired=1' : ''}`;
}

export function Redirect({ to }: { to: string }) {
  const serverRedirect = useContext(ServerRedirectContext);
  // On the server the page is not sent at all: the gateway answers with a redirect to `to`.
  if (serverRedirect) serverRedirect.to ??= to;
  useEffect(() => navigate(to, { replace: true, silent: true }), [to]);
  return null;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser handle new tabs, downloads and other modified clicks.
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}
