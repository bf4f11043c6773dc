import { useEffect, useRef } from 'react';
import { hasNavigated } from '../router';
import { useRealmSettings } from '../session';

/**
 * The page's h1. After a move between pages it takes focus, so screen readers announce the
 * new page and keyboard users start from its top; it also names the browser tab.
 */
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const { realm } = useRealmSettings();

  useEffect(() => {
    document.title = `${children} · ${realm.name}`;
  }, [children, realm.name]);

  useEffect(() => {
    if (hasNavigated()) ref.current?.focus();
  }, []);

  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}
