import { Suspense } from 'react';
import { Layout } from './components/Layout';
import { PageHeading } from './components/PageHeading';
import { LoadError, Loading } from './components/Status';
import { useI18n, type UiKey } from './i18n';
import { normalizePath, pageAt } from './pages/registry';
import { useLocation } from './router';
import { useSettingsQuery } from './session';

/** The page's frame and heading at once; its content once the realm's settings are known. */
function PendingPage({ title, failure }: { title?: UiKey; failure?: { error: unknown; retry: () => void } }) {
  const { t } = useI18n();
  return (
    <>
      {title ? <PageHeading>{t(title)}</PageHeading> : failure && <PageHeading>{t('loadFailedTitle')}</PageHeading>}
      {failure ? <LoadError error={failure.error} retry={failure.retry} /> : <Loading />}
    </>
  );
}

export function App() {
  const settings = useSettingsQuery();
  const path = normalizePath(useLocation().path);
  const { title, component: Page } = pageAt(path);
  return (
    <Layout>
      {settings.data ? (
        <Suspense fallback={<PendingPage title={title} />}>
          <Page key={path} />
        </Suspense>
      ) : (
        <PendingPage
          title={title}
          failure={settings.error ? { error: settings.error, retry: () => void settings.refetch() } : undefined}
        />
      )}
    </Layout>
  );
}
