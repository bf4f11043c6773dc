// The tests render every language, as the server does.
import '@accounts/validators/all-messages';
import '../i18n/all-ui-strings';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// A page's code loads lazily and its data through the fake API: on a busy machine that takes
// longer than Testing Library's default second, which would fail a test that is right.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  // Server-render tests run in plain Node: no document, no history.
  if (typeof window === 'undefined') return;
  cleanup();
  window.history.replaceState(null, '', '/');
});
