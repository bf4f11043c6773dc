import { useState } from 'react';

interface CopyButtonProps {
  /** What goes to the clipboard. */
  text: string;
  label: string;
  /** Said once it is copied, or when the browser refused. */
  copied: string;
  failed: string;
}

/**
 * Copies a text with the browser's clipboard and says how it went beside the button (a live
 * region, so it is read without moving focus). Where the clipboard is refused, the text stays on
 * the page to be selected by hand.
 */
export function CopyButton({ text, label, copied, failed }: CopyButtonProps) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    setOutcome(null);
    try {
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>{' '}
      <span role="status" className={outcome === 'failed' ? 'copy-outcome copy-failed' : 'copy-outcome'}>
        {outcome === 'copied' ? copied : outcome === 'failed' ? failed : ''}
      </span>
    </span>
  );
}
