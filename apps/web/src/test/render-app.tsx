import type { Locale } from '@accounts/validators';
import { render, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { Providers } from '../Providers';
import type { PageState } from '../page-data';
import { fakeApi, type Handlers } from './fake-api';

/** Renders the whole app at a path, talking to a fake API; `state`, what the page before handed this one (history state). */
export function renderApp(path: string, handlers: Handlers = {}, locale: Locale = 'en', state: PageState = null) {
  window.history.replaceState(state, '', path);
  const api = fakeApi(handlers);
  const user = userEvent.setup();
  const view = render(
    <Providers locale={locale} fetchImpl={api.fetch}>
      <ErrorBoundary>
        <App />
      </ErrorBoundary>
    </Providers>,
  );
  return { ...view, api, user };
}

export const currentPath = () => window.location.pathname + window.location.search;

/** The error summary once it is shown (it takes focus; it is not a live region). */
export async function findSummary(): Promise<HTMLElement> {
  let found: HTMLElement | null = null;
  await waitFor(() => {
    found = document.querySelector<HTMLElement>('.error-summary');
    if (!found) throw new Error('no error summary');
  });
  return found!;
}
