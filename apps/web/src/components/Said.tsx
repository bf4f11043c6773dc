import type { ReactNode } from 'react';

/** What a page says after a change whose form is gone: it is done, or the state was not what the page showed. */
export type Said = { text: string; tone: 'success' | 'notice' };

/**
 * Where the page says it: a live region there from the start, so what comes is read out; it takes
 * focus where the part that had it is gone. `children` follow the words inside the box, while
 * there are words: what the person may do next about it (a link, a one-button form).
 */
export function SaidRegion({ id, said, children }: { id: string; said: Said | null; children?: ReactNode }) {
  return (
    <div role="status" id={id} className={said?.tone} tabIndex={-1}>
      {said && <p>{said.text}</p>}
      {said && children}
    </div>
  );
}
