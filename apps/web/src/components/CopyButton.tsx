import { useState } from 'react';
import { useHydrated } from '../hydrated';
import { useSecurityText } from '../i18n/security-strings';

interface CopyButtonProps {
  /** What goes to the clipboard. */
  text: string;
  label: string;
}

/**
 * Copies a text with the browser's clipboard and says how it went beside the button (a live
 * region, so it is read without moving focus). Where the clipboard is refused, the text stays on
 * the page to be selected by hand, as it is without scripts (the clipboard is a script API: the
 * button is absent until the app runs).
 */
export function CopyButton({ text, label }: CopyButtonProps) {
  const s = useSecurityText();
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  const hydrated = useHydrated();
  const copy = async () => {
    setOutcome(null);
    try {
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };
  if (!hydrated) return null;
  return (
    <span className="copy">
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>{' '}
      <span role="status" className={outcome === 'failed' ? 'copy-outcome copy-failed' : 'copy-outcome'}>
        {outcome === 'copied' ? s('copied') : outcome === 'failed' ? s('copyFailed') : ''}
      </span>
    </span>
  );
}
