import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

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

export function navigate(to: string, { replace = false }: { replace?: boolean } = {}) {
  if (to === currentHref()) return;
  if (replace) {
    window.history.replaceState(null, '', to);
  } else {
    window.history.pushState(null, '', to);
    pushCount += 1;
    window.scrollTo?.(0, 0);
  }
  for (const listener of listeners) listener();
}

/** True once the user has moved between pages, so a new page may take focus. */
export const hasNavigated = () => pushCount > 0;

export function useLocation() {
  const href = useSyncExternalStore(subscribe, currentHref, currentHref);
  const url = new URL(href, 'http://local');
  return { path: url.pathname, search: url.searchParams };
}

/** The place to return to after signing in: only a path on this site, never another origin. */
export function safeNext(value: string | null, fallback = '/account'): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  return value;
}

export function loginPathFor(returnTo: string) {
  return `/login?next=${encodeURIComponent(returnTo)}`;
}

export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser handle new tabs, downloads and other modified clicks.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}
