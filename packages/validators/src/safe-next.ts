// Where a person may be sent back to after signing in: read by the web app's pages, the gateway
// (page-forms.ts) and the api (an upstream sign-in's `next`), with nothing else in it, so the
// first page's script takes only this (a subpath import, never the package's index).

/** Any origin: a `next` is judged by where it lands, the same on the server and in the browser. */
const NEXT_BASE = 'https://next.invalid';

/**
 * The place to return to after signing in: only a path on this site, never another origin. The
 * value is read as the browser will read it (the URL parser drops tabs and newlines and takes
 * `\` for `/`, so `/\t/evil.example` is `//evil.example`), and only what lands on this origin, as
 * a path that cannot be read as an authority, is kept: that path, normalized, is returned.
 */
export function safeNext(value: string | null, fallback = '/account'): string {
  if (!value || !value.startsWith('/')) return fallback;
  let url: URL;
  try {
    url = new URL(value, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE || url.pathname.startsWith('//')) return fallback;
  return url.pathname + url.search + url.hash;
}
