import type { Locale } from '@accounts/validators';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { useState, type ReactNode } from 'react';
import { ServerTitleContext } from './components/PageHeading';
import { LocaleProvider } from './i18n';
import type { PageData } from './page-data';
import { ServerHrefContext } from './router';
import { knownMe } from './session';
import { createApiClient, problemOf, trpc } from './trpc';

function createQueryClient(data?: PageData) {
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        // A refusal (401, 429, ...) will not change by asking again; a dropped connection might.
        retry: (failures, error) => failures < 2 && problemOf(error) === null,
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
  if (data) {
    queryClient.setQueryData(getQueryKey(trpc.account.settings, undefined, 'query'), data.settings);
    // Nobody signed in is left for the app to learn (a 401 from account.me), as without a page.
    if (data.user)
      queryClient.setQueryData(getQueryKey(trpc.account.me, undefined, 'query'), knownMe(data.user, data.twoStep));
  }
  return queryClient;
}

interface ProvidersProps {
  locale: Locale;
  /** Tests pass a fake fetch; the browser uses its own. */
  fetchImpl?: typeof fetch;
  /** The answers the page was rendered with (server and hydration alike). */
  data?: PageData;
  /** On the server: the address being rendered, and where the page's title is recorded. */
  href?: string;
  titleSink?: { title?: string };
  children: ReactNode;
}

export function Providers({ locale, fetchImpl, data, href, titleSink, children }: ProvidersProps) {
  const [queryClient] = useState(() => createQueryClient(data));
  const [apiClient] = useState(() => createApiClient(fetchImpl));
  return (
    <ServerHrefContext.Provider value={href ?? null}>
      <ServerTitleContext.Provider value={titleSink ?? null}>
        <LocaleProvider locale={locale}>
          <trpc.Provider client={apiClient} queryClient={queryClient}>
            <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
          </trpc.Provider>
        </LocaleProvider>
      </ServerTitleContext.Provider>
    </ServerHrefContext.Provider>
  );
}
