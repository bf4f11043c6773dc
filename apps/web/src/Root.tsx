import type { Locale } from '@accounts/validators';
import { StrictMode } from 'react';
import { App } from './App';
import { ErrorBoundary } from './components/ErrorBoundary';
import type { PageData } from './page-data';
import { Providers } from './Providers';

interface RootProps {
  locale: Locale;
  data?: PageData;
  href?: string;
  titleSink?: { title?: string };
  redirectSink?: { to?: string };
  /** Tests pass a fake fetch; the browser uses its own. */
  fetchImpl?: typeof fetch;
}

/** The whole app, the same tree for the server's render and the browser's (hydration needs both alike). */
export function Root({ locale, data, href, titleSink, redirectSink, fetchImpl }: RootProps) {
  return (
    <StrictMode>
      <Providers
        locale={locale}
        data={data}
        href={href}
        titleSink={titleSink}
        redirectSink={redirectSink}
        fetchImpl={fetchImpl}
      >
        <ErrorBoundary>
          <App />
        </ErrorBoundary>
      </Providers>
    </StrictMode>
  );
}
