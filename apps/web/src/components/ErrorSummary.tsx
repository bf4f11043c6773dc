import { useEffect, useRef, type MouseEvent } from 'react';
import type { SummaryEntry } from '../forms/useForm';
import { useI18n } from '../i18n';

interface ErrorSummaryProps {
  entries: SummaryEntry[];
  /** Field labels, so each link says which field it is about. */
  labels: Record<string, string>;
  /** A problem that belongs to no single field (rate limit, network, server). */
  message: string | null;
  /** Changes on every failed submit; the summary then takes focus. */
  focusKey: number;
}

/** Lists what stopped the submit, each linking to its field; takes focus so it is read out. */
export function ErrorSummary({ entries, labels, message, focusKey }: ErrorSummaryProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  const visible = entries.length > 0 || message !== null;

  useEffect(() => {
    if (focusKey > 0) ref.current?.focus();
  }, [focusKey]);

  if (!visible) return null;

  const goTo = (event: MouseEvent<HTMLAnchorElement>, field: string) => {
    const input = document.getElementById(field);
    if (!input) return;
    event.preventDefault();
    input.focus();
    input.scrollIntoView?.({ block: 'center' });
  };

  return (
    <div className="error-summary" role="alert" tabIndex={-1} ref={ref} aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">{message ?? t('summaryTitle')}</h2>
      {entries.length > 0 && (
        <ul>
          {entries.map(({ field, message }) => (
            <li key={field}>
              <a href={`#${field}`} onClick={(e) => goTo(e, field)}>
                {labels[field] ? `${labels[field]}: ${message}` : message}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
