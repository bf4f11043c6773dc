import type { Locale } from '@accounts/validators';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { useState, type ReactNode } from 'react';
import { ServerTitleContext } from './components/PageHeading';
import { LocaleProvider } from './i18n';
import type { PageData } from './page-data';
import { RenderedStateContext, ServerHrefContext, ServerRedirectContext } from './router';
import { FormOutcomeContext, problemError } from './forms/form-outcome';
import { isUnauthenticated } from './failure';
import { forgetPersonalData, knownMe, NOBODY } from './session';
import { TimeZoneContext } from './time-zone';
import { createApiClient, problemOf, trpc, type Problem } from './trpc';

function createQueryClient(data?: PageData) {
  const queryClient: QueryClient = new QueryClient({
    // A session that ended (any 401): nothing of its person is kept but what said so.
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (isUnauthenticated(error)) forgetPersonalData(queryClient, query);
      },
    }),
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
    // Nobody signed in is known too (null), so the page does not ask again to be told so.
    queryClient.setQueryData(
      getQueryKey(trpc.account.me, undefined, 'query'),
      data.user ? knownMe(data.user, data.twoStep, data.security) : NOBODY,
    );
    // The page's own queries, answered on the server just before, as if asked here then: an
    // answer, or a refusal (sent as its problem's code). react-query's hydrate() does the same, for
    // 0.4 KB more of the first script.
    for (const { queryKey, state } of data.queries?.queries ?? [])
      queryClient
        .getQueryCache()
        .build(
          queryClient,
          { queryKey },
          state.error ? { ...state, error: problemError(state.error as unknown as Problem) } : state,
        );
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
  /** On the server: where a page that sends the person elsewhere records where. */
  redirectSink?: { to?: string };
  children: ReactNode;
}

export function Providers({ locale, fetchImpl, data, href, titleSink, redirectSink, children }: ProvidersProps) {
  const [queryClient] = useState(() => createQueryClient(data));
  const [apiClient] = useState(() => createApiClient(fetchImpl));
  return (
    <ServerHrefContext.Provider value={href ?? null}>
      <ServerRedirectContext.Provider value={redirectSink ?? null}>
        <RenderedStateContext.Provider value={data?.state ?? null}>
          <FormOutcomeContext.Provider value={data?.form ?? null}>
            <ServerTitleContext.Provider value={titleSink ?? null}>
              <LocaleProvider locale={locale}>
                <TimeZoneContext.Provider value={data?.timeZone ?? null}>
                  <trpc.Provider client={apiClient} queryClient={queryClient}>
                    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
                  </trpc.Provider>
                </TimeZoneContext.Provider>
              </LocaleProvider>
            </ServerTitleContext.Provider>
          </FormOutcomeContext.Provider>
        </RenderedStateContext.Provider>
      </ServerRedirectContext.Provider>
    </ServerHrefContext.Provider>
  );
}
