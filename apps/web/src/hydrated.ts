import { useSyncExternalStore } from 'react';

const never = () => () => {};

/**
 * False while a control is still the server's HTML (the server's render, and the browser's
 * hydration of it), true once the app handles it. A page painted before its scripts ran shows
 * its controls at once but keeps them from acting until then: a submit would otherwise be the
 * browser's own (the page reloads, the fields are lost) and a button would do nothing.
 */
export const useHydrated = () =>
  useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
