// @vitest-environment node
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pageTitle } from './components/PageHeading';
import { renderDocument, renderPage, type PageData } from './entry-server';
import { translate } from './i18n';
import { PAGE_REGISTRY } from './pages/registry';
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
    const page = await renderPage('/account', {
      ...signedIn,
      user: { ...signedIn.user!, name: '<img src=x onerror=alert(1)>' },
    });
    expect(page.title).toBe('Your account · Acme Inc · Example ID');
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain(`<span class="account-email">${ADA.email}</span>`);
    expect(page.html).toContain('href="/settings/sessions"');
    expect(page.html).not.toContain('aria-busy="true"></nav>');
  });

  it('titles each page of the registry with the heading it shows while it loads', async () => {
    for (const page of PAGE_REGISTRY.filter((p) => p.title)) {
      // Signed in or not, whichever the page is for (the other one redirects, untitled).
      const titles = await Promise.all(
        [signedOut, signedIn].map(async (data) => (await renderPage(page.path, data)).title),
      );
      const heading = translate('en', page.title!);
      expect(titles, page.path).toContainEqual(expect.stringMatching(new RegExp(`^${heading} · `)));
    }
  });

  it("reads a mailed link's token from the address it renders", async () => {
    const page = await renderPage('/reset-password?token=abc', signedOut);
    expect(page.html).toMatch(/<input [^>]*id="new_password"/);
    const without = await renderPage('/reset-password', signedOut);
    expect(without.html).not.toMatch(/<input [^>]*id="new_password"/);
  });

  it("renders a verification link without asking anything: what it would confirm is the browser's to ask", async () => {
    const page = await renderPage(`/verify-email?token=${'A'.repeat(43)}`, signedIn);
    expect(page.html).toContain('<h1 tabindex="-1">Confirm your email address</h1>');
    expect(page.html).toContain('Checking the link…');
    expect(page.html).not.toContain('A'.repeat(43));
    expect(page.html).not.toContain('Confirm this address');
  });

  const indexHtml = readFileSync(new URL('../index.html', import.meta.url), 'utf8');
  const pageData = (document: string) =>
    JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/.exec(document)![1]!);

  it('puts the page into index.html with the answers it was rendered from, which the app then does not ask for again', async () => {
    const signIn = await renderDocument(indexHtml, '/login', signedOut);
    expect(signIn).toContain('<title>Sign in · Example ID</title>');
    expect(signIn).toMatch(/<div id="root">.*<h1 tabindex="-1">Sign in<\/h1>.*<\/div><script id="page-data"/s);
    expect(pageData(signIn)).toEqual(signedOut);
    // The settings came with it; who is signed in is still the app's to ask.
    expect(signIn).not.toContain('href="/trpc/account.settings"');
    expect(signIn).toContain('<link rel="preload" href="/trpc/account.me"');

    const account = await renderDocument(indexHtml, '/account', signedIn);
    expect(account).not.toContain('href="/trpc/account.settings"');
    expect(account).not.toContain('href="/trpc/account.me"');
    expect(pageData(account)).toEqual(signedIn);
  });

  it('escapes what people typed in the title and in the answers', async () => {
    const name = '</script><script>alert(1)</script>';
    const settings = { ...ACME_SETTINGS, realm: { ...ACME_SETTINGS.realm, name: 'A & <B>' } };
    const document = await renderDocument(indexHtml, '/account', { ...signedIn, settings, user: { ...ADA, name } });
    expect(document).toContain(`<title>${pageTitle('Your account', 'A &#38; &#60;B&#62;', 'Example ID')}</title>`);
    expect(document).not.toContain('<script>alert(1)');
    expect(pageData(document).user.name).toBe(name);
  });
});
