import type { Locale } from '@accounts/validators';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { LocaleProvider } from './i18n';
import { createApiClient, problemOf, trpc } from './trpc';

function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A refusal (401, 429, ...) will not change by asking again; a dropped connection might.
        retry: (failures, error) => failures < 2 && problemOf(error) === null,
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
}

interface ProvidersProps {
  locale: Locale;
  /** Tests pass a fake fetch; the browser uses its own. */
  fetchImpl?: typeof fetch;
  children: ReactNode;
}

export function Providers({ locale, fetchImpl, children }: ProvidersProps) {
  const [queryClient] = useState(createQueryClient);
  const [apiClient] = useState(() => createApiClient(fetchImpl));
  return (
    <LocaleProvider locale={locale}>
      <trpc.Provider client={apiClient} queryClient={queryClient}>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </trpc.Provider>
    </LocaleProvider>
  );
}
