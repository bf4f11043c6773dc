// What a person had typed (never passwords) when their session ended on submit, kept in this
// tab's sessionStorage while they sign in, and put back when they return to the same page.

const KEY = 'accounts:kept-form';

interface Kept {
  path: string;
  values: Record<string, string>;
}

export function keepForAfterSignIn(values: Record<string, string>) {
  if (Object.keys(values).length === 0) return;
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ path: window.location.pathname, values } satisfies Kept));
  } catch {
    // Storage may be off; the person then types again, which is all that is lost.
  }
}

/** The kept values of these fields, if they were kept on the current page. */
export function keptValues(fields: readonly string[]): Record<string, string> {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return {};
    const kept = JSON.parse(raw) as Kept;
    if (kept.path !== window.location.pathname) return {};
    return Object.fromEntries(
      fields.filter((f) => typeof kept.values[f] === 'string').map((f) => [f, kept.values[f]!]),
    );
  } catch {
    return {};
  }
}

/** Once a form of the page they were kept on has shown them, they are not needed again. */
export function forgetKeptValues() {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (raw && (JSON.parse(raw) as Kept).path === window.location.pathname) sessionStorage.removeItem(KEY);
  } catch {
    // nothing kept, or storage is off
  }
}
