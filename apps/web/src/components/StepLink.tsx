import type { AnchorHTMLAttributes, MouseEvent } from 'react';

type StepLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'> & {
  /** The page's address with the step in its query (or its plain path, to close it). */
  href: string;
  /** What the app does instead of following the link. */
  onOpen: () => void;
};

/**
 * What opens a step of the page (a confirm step, a form, more of a list) or closes it again: a
 * link to the page's address with that step in its query, which the page reads to show it, so
 * it works without scripts; with them, a click shows it in place (no new page, focus kept).
 * New tabs and other modified clicks are the browser's, as for any link.
 */
export function StepLink({ href, onOpen, ...rest }: StepLinkProps) {
  const open = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onOpen();
  };
  return <a href={href} onClick={open} {...rest} />;
}

/** The address of a step of the page at `path`: `path?param=value`. */
export const stepHref = (path: string, param: string, value: string) =>
  `${path}?${new URLSearchParams({ [param]: value }).toString()}`;

/** The step the page's address opens (stepHref's `param=value`): the first of `params` in its query, with its value. */
export function stepIn<P extends string>(
  search: URLSearchParams,
  params: readonly P[],
): { param: P; value: string } | null {
  for (const param of params) {
    const value = search.get(param);
    if (value) return { param, value };
  }
  return null;
}
