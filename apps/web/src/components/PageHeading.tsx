import { createContext, useContext, useEffect, useRef } from 'react';
import { hasNavigated } from '../router';
import { useProductName, useSettingsQuery } from '../session';

/** A page's title: "Sign in · Accounts", or "Sign in · Acme Inc · Accounts" in a realm of its own. */
export const pageTitle = (heading: string | null, realmName: string | null, productName: string) =>
  [heading, realmName, productName].filter(Boolean).join(' · ');

/** Where a server render records the page's title (null in the browser). */
export const ServerTitleContext = createContext<{ title?: string } | null>(null);

/**
 * The page's h1. After a move between pages it takes focus, so screen readers announce the
 * new page and keyboard users start from its top. It also names the browser tab, like the
 * header: "Sign in · Accounts", or "Sign in · Acme Inc · Accounts" in a realm of its own.
 */
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const realm = useSettingsQuery().data?.realm;
  const productName = useProductName();
  const realmName = realm?.named ? realm.name : null;
  const title = pageTitle(children, realmName, productName);
  // On the server, where no effect runs, the title goes into the page's <title>.
  const serverTitle = useContext(ServerTitleContext);
  if (serverTitle) serverTitle.title = title;

  useEffect(() => {
    document.title = title;
  }, [title]);

  useEffect(() => {
    if (hasNavigated()) ref.current?.focus();
  }, []);

  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}
