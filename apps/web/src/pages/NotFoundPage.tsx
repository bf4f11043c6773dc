import { PageHeading } from '../components/PageHeading';
import { useI18n } from '../i18n';
import { Link } from '../router';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('notFoundTitle')}</PageHeading>
      <p>{t('notFoundBody')}</p>
      <p>
        <Link to="/">{t('goHome')}</Link>
      </p>
    </>
  );
}
