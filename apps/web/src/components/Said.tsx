/** What a page says after a change whose form is gone: it is done, or the state was not what the page showed. */
export type Said = { text: string; tone: 'success' | 'notice' };

/**
 * Where the page says it: a live region there from the start, so what comes is read out; it takes
 * focus where the part that had it is gone.
 */
export function SaidRegion({ id, said }: { id: string; said: Said | null }) {
  return (
    <div role="status" id={id} className={said?.tone} tabIndex={-1}>
      {said && <p>{said.text}</p>}
    </div>
  );
}
