import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  // Server-render tests run in plain Node: no document, no history.
  if (typeof window === 'undefined') return;
  cleanup();
  window.history.replaceState(null, '', '/');
});
