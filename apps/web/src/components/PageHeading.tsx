import { useEffect, useRef } from 'react';
import { hasNavigated } from '../router';
import { useProductName, useSettingsQuery } from '../session';

/**
 * The page's h1. After a move between pages it takes focus, so screen readers announce the
 * new page and keyboard users start from its top. It also names the browser tab, like the
 * header: "Sign in · Accounts", or "Sign in · Acme Inc · Accounts" in a realm of its own.
 */
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const realm = useSettingsQuery().data?.realm;
  const productName = useProductName();
  const realmName = realm && !realm.isDefault ? realm.name : null;

  useEffect(() => {
    document.title = [children, realmName, productName].filter(Boolean).join(' · ');
  }, [children, realmName, productName]);

  useEffect(() => {
    if (hasNavigated()) ref.current?.focus();
  }, []);

  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}
