import { describeFailure } from '../failure';
import { useI18n } from '../i18n';

export function Loading() {
  const { t } = useI18n();
  return (
    <p className="loading" role="status">
      {t('loading')}
    </p>
  );
}

/** A load that failed: says why in words, and offers to try again. */
export function LoadError({ error, retry }: { error: unknown; retry: () => void }) {
  const { t, locale } = useI18n();
  return (
    <div className="alert" role="alert">
      <p>{describeFailure(error, locale).message}</p>
      <button type="button" className="secondary" onClick={retry}>
        {t('retry')}
      </button>
    </div>
  );
}
