// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { renderPage, type PageData } from './entry-server';
import { ADA, ACME_SETTINGS, DEFAULT_SETTINGS } from './test/fake-api';
import { PAGES } from './test/pages';

// The gateway's render of each page, in plain Node as the gateway runs it (no window, no
// document): every page renders without touching the browser, with its content in the HTML.


const signedOut: PageData = { locale: 'en', settings: DEFAULT_SETTINGS, user: null };
const signedIn: PageData = { locale: 'en', settings: ACME_SETTINGS, user: { ...ADA, emailVerified: false } };

describe('renderPage (the server render)', () => {
  it('renders every page, signed in or not, outside a browser', async () => {
    expect(typeof window).toBe('undefined');
    for (const data of [signedOut, signedIn]) {
      for (const href of PAGES) {
        const page = await renderPage(href, data);
        expect(page.html, href).toContain('<main id="main"');
        expect(page.title, href).not.toBe('');
      }
    }
  });

  it('puts the form of a signed-out page in the HTML, posted, with the page title', async () => {
    const page = await renderPage('/login?next=%2Fsettings', { ...signedOut, locale: 'de' });
    expect(page.title).toBe('Anmelden · Example ID');
    expect(page.html).toContain('<h1 tabindex="-1">Anmelden</h1>');
    expect(page.html).toMatch(/<form [^>]*method="post"/);
    // The controls wait for the app: read-only inputs, a disabled submit.
    expect(page.html).toMatch(/<input [^>]*id="email"[^>]*readOnly=""/);
    expect(page.html).toMatch(/<button type="submit" class="primary" disabled="">Anmelden<\/button>/);
    // Nobody known to be signed in: the navigation waits, empty.
    expect(page.html).toContain('aria-busy="true"></nav>');
  });

  it("renders a signed-in person's account and navigation, escaped, in the realm's name", async () => {
    const page = await renderPage('/account', { ...signedIn, user: { ...signedIn.user!, name: '<img src=x onerror=alert(1)>' } });
    expect(page.title).toBe('Your account · Acme Inc · Example ID');
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain(`<span class="account-email">${ADA.email}</span>`);
    expect(page.html).toContain('href="/settings/sessions"');
    expect(page.html).not.toContain('aria-busy="true"></nav>');
  });

  it("reads a mailed link's token from the address it renders", async () => {
    const page = await renderPage('/reset-password?token=abc', signedOut);
    expect(page.html).toMatch(/<input [^>]*id="new_password"/);
    const without = await renderPage('/reset-password', signedOut);
    expect(without.html).not.toMatch(/<input [^>]*id="new_password"/);
  });

  it('renders a verification link without asking anything: what it would confirm is the browser\'s to ask', async () => {
    const page = await renderPage(`/verify-email?token=${'A'.repeat(43)}`, signedIn);
    expect(page.html).toContain('<h1 tabindex="-1">Confirm your email address</h1>');
    expect(page.html).toContain('Checking the link…');
    expect(page.html).not.toContain('A'.repeat(43));
    expect(page.html).not.toContain('Confirm this address');
  });
});
