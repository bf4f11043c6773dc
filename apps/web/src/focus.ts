import { useEffect, useState } from 'react';

/**
 * Focus for a part the page draws next, where the one that had focus is gone (a form closed, a
 * change done): `focusNext(selector)` moves it to what the selector finds once it is drawn.
 */
export function useFocusNext() {
  const [target, setTarget] = useState<string | null>(null);
  useEffect(() => {
    if (target === null) return;
    document.querySelector<HTMLElement>(target)?.focus();
    setTarget(null);
  }, [target]);
  return setTarget;
}
