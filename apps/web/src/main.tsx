import './zod-jitless';
import { loadMessages } from '@accounts/validators';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { browserLocale } from './i18n';
import { loadUiStrings } from './i18n/ui-strings';
import { PAGE_DATA_ID, type PageData } from './page-data';
import { Root } from './Root';
import './styles.css';
import './mail.css';

// The gateway sends each page rendered, with the answers it was rendered from; the app takes
// over that HTML (hydration) instead of drawing it again. Without them (no server render) it
// draws the page itself.
const dataElement = document.getElementById(PAGE_DATA_ID);
const data = dataElement ? (JSON.parse(dataElement.textContent ?? 'null') as PageData | null) : null;
const locale = data?.locale ?? browserLocale();
document.documentElement.lang = locale;

// What the page before handed this one across the server's redirect is this page's history
// state, as after the app's own navigation (a reload keeps it).
if (data?.state) window.history.replaceState(data.state, '');

const container = document.getElementById('root')!;
// The page's language's messages and words first (English comes with the app; another is a small
// chunk of its own), so the app says what the server's render said.
void Promise.all([loadMessages(locale), loadUiStrings(locale)]).then(() => {
  // As a transition, hydration runs in slices of a few milliseconds with the browser free between
  // them (input, paint), not as one long task; a control used meanwhile is hydrated first.
  if (data) startTransition(() => void hydrateRoot(container, <Root locale={locale} data={data} />));
  else createRoot(container).render(<Root locale={locale} />);
});
