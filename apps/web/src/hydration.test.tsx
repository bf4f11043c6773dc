import { act, waitFor } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { renderPage, type PageData } from './entry-server';
import { Root } from './Root';
import { ADA, ACME_SETTINGS, DEFAULT_SETTINGS, fakeApi, signedInAs } from './test/fake-api';
import { PAGES } from './test/pages';

// The browser's side of a rendered page: the app takes over the server's HTML for every page,
// signed in or not, without a mismatch (React reports each one, then draws the page again), and
// its controls come to life once it has.

async function hydrate(href: string, data: PageData) {
  const { html } = await renderPage(href, data);
  window.history.replaceState(null, '', href);
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  const mismatches: unknown[] = [];
  const api = fakeApi({
    'account.me': () => (data.user ? signedInAs(data.user) : { problem: { status: 401, code: 'unauthenticated' } }),
  });
  // The callbacks return a promise so that act takes its async form, which lets the work React
  // queues (the page's data, lazy pages) settle before it resolves.
  const root = await act(() =>
    Promise.resolve(
      hydrateRoot(container, <Root locale={data.locale} data={data} fetchImpl={api.fetch} />, {
        onRecoverableError: (error) => mismatches.push(error),
      }),
    ),
  );
  const unmount = async () => {
    await act(() => Promise.resolve(root.unmount()));
    container.remove();
  };
  return { container, mismatches, unmount };
}

const signedOut: PageData = { locale: 'en', settings: DEFAULT_SETTINGS, user: null };
const signedIn: PageData = { locale: 'fr', settings: ACME_SETTINGS, user: { ...ADA, emailVerified: true } };

describe('hydration of the server render', () => {
  it('takes over every page without a mismatch', async () => {
    for (const data of [signedOut, signedIn]) {
      for (const href of PAGES) {
        const { mismatches, unmount } = await hydrate(href, data);
        // Lazy pages hydrate once their code has loaded.
        await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
        expect(mismatches, `${href} ${data.user ? 'signed in' : 'signed out'}`).toEqual([]);
        await unmount();
      }
    }
  });

  it('keeps the inputs read-only and the submit disabled until the app runs them', async () => {
    const { container, unmount } = await hydrate('/register', signedOut);
    await waitFor(() => {
      expect(container.querySelector('#name')!.hasAttribute('readonly')).toBe(false);
      expect(container.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled).toBe(false);
    });
    expect(container.querySelector('h1')!.textContent).toBe('Create your account');
    await unmount();
  });
});
