import { useEffect, useRef, type MouseEvent } from 'react';
import type { SubmitReport } from '../forms/useForm';
import { useI18n } from '../i18n';

interface ErrorSummaryProps {
  report: SubmitReport;
  /** Field labels, so each link says which field it is about. */
  labels: Record<string, string>;
}

/**
 * What stopped the last submit, each entry linking to its field. It takes focus after each
 * failed submit, which is how it is announced (once: it is not also a live region), and it
 * keeps its wording until the next submit, whatever is typed meanwhile.
 */
export function ErrorSummary({ report, labels }: ErrorSummaryProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  const { entries, message, key } = report;

  useEffect(() => {
    if (key > 0) ref.current?.focus();
  }, [key]);

  if (entries.length === 0 && message === null) return null;

  const goTo = (event: MouseEvent<HTMLAnchorElement>, field: string) => {
    const input = document.getElementById(field);
    if (!input) return;
    event.preventDefault();
    input.focus();
    input.scrollIntoView?.({ block: 'center' });
  };

  return (
    <div className="error-summary" tabIndex={-1} ref={ref} aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">{message ?? t('summaryTitle')}</h2>
      {entries.length > 0 && (
        <ul>
          {entries.map(({ field, message }) => (
            <li key={field}>
              <a href={`#${field}`} onClick={(e) => goTo(e, field)}>
                {labels[field] ? t('labelledError', { label: labels[field], message }) : message}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
