// @vitest-environment node
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pageTitle } from './components/PageHeading';
import { renderDocument, renderPage, type PageData } from './entry-server';
import type { QueryCall } from './page-data';
import { translate } from './i18n';
import { PAGE_REGISTRY } from './pages/registry';
import { ADA, ACME_SETTINGS, DEFAULT_SETTINGS } from './test/fake-api';
import { PAGES } from './test/pages';

// The gateway's render of each page, in plain Node as the gateway runs it (no window, no
// document): every page renders without touching the browser, with its content in the HTML.

const signedOut: PageData = { locale: 'en', settings: DEFAULT_SETTINGS, user: null };
const signedIn: PageData = { locale: 'en', settings: ACME_SETTINGS, user: { ...ADA, emailVerified: false } };
const NOW = new Date().toISOString();

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
    // A real form, posted to the page's own address, that works before (or without) the app.
    expect(page.html).toMatch(/<form [^>]*action="\/login\?next=%2Fsettings" method="post">/);
    expect(page.html).toContain('<input type="hidden" name="_form" value="signIn"/>');
    expect(page.html).toMatch(/<input [^>]*id="email"/);
    expect(page.html).not.toMatch(/readOnly/i);
    expect(page.html).toMatch(/<button type="submit" class="primary">Anmelden<\/button>/);
    expect(page.html).not.toMatch(/<button [^>]*disabled/);
    // Passkeys and showing the password need the app: absent from the server's HTML.
    expect(page.html).not.toContain('passkey-sign-in');
    expect(page.html).not.toContain('class="toggle"');
    // Nobody signed in is known on the server: the navigation offers signing in and registering.
    expect(page.html).not.toContain('aria-busy="true"></nav>');
    expect(page.html).toMatch(/<nav [^>]*>.*href="\/register".*<\/nav>/);
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
    const link = (answer: unknown) => async () => {
      const document = await renderDocument(indexHtml, '/reset-password?token=abc', signedOut, () =>
        Promise.resolve(answer),
      );
      return (document as { html: string }).html;
    };
    expect(await link({ state: 'usable' })()).toMatch(/<input [^>]*id="new_password"/);
    // A link that no longer works says so at once, with the form for a new one filled in.
    const used = await link({ state: 'used', email: 'ada@example.com' })();
    expect(used).not.toMatch(/<input [^>]*id="new_password"/);
    expect(used).toContain('This link was already used, or a newer one was sent since.');
    expect(used).toMatch(/<input [^>]*value="ada@example.com"/);
    expect(used).toContain('<input type="hidden" name="_form" value="forgotPassword"/>');
    const without = await renderPage('/reset-password', signedOut);
    expect(without.html).not.toMatch(/<input [^>]*id="new_password"/);
  });

  it('renders a verification link from its check, and without one says it is checking', async () => {
    const token = 'A'.repeat(43);
    const page = await renderPage(`/verify-email?token=${token}`, signedIn);
    expect(page.html).toContain('<h1 tabindex="-1">Confirm your email address</h1>');
    expect(page.html).toContain('Checking the link…');
    expect(page.html).not.toContain('Confirm this address');

    // Its check asked with the page (for anyone: the link is the proof), the button posts the token.
    for (const data of [signedIn, signedOut]) {
      const calls: string[] = [];
      const call: QueryCall = (path) => {
        calls.push(path);
        return Promise.resolve(
          path === 'email.checkLink' ? { state: 'usable' } : { email: 'ada@example.com', realmName: 'Acme Inc' },
        );
      };
      const document = await renderDocument(indexHtml, `/verify-email?token=${token}`, data, call);
      expect(calls.sort()).toEqual(['email.checkLink', 'email.verificationLink']);
      const { html } = document as { html: string };
      expect(html).toContain('Confirm ada@example.com as the email address of your account in Acme Inc.');
      expect(html).toContain(`<input type="hidden" name="token" value="${token}"/>`);
      expect(html).toMatch(/<button type="submit" class="primary">Confirm this address<\/button>/);
    }
  });

  it("asks a signed-out page for the realm's providers, and renders a link to each", async () => {
    const calls: string[] = [];
    const call: QueryCall = (path) => {
      calls.push(path);
      return Promise.resolve({ providers: [{ id: 'google', name: 'Google', kind: 'google' }] });
    };
    const document = await renderDocument(indexHtml, '/login?next=%2Fsettings', signedOut, call);
    expect(calls).toEqual(['upstream.providers']);
    expect(html(document)).toContain('href="/users/oauth/google/start?next=%2Fsettings"');
    expect(html(document)).toContain('Continue with Google');
  });

  it('renders the connected accounts with a form to remove each and one to connect the others', async () => {
    const call: QueryCall = () =>
      Promise.resolve({
        connections: [{ provider: 'github', providerName: 'GitHub', email: null, connectedAt: NOW, lastUsedAt: NOW }],
        available: [{ id: 'google', name: 'Google' }],
        hasPassword: true,
      });
    const page = html(await renderDocument(indexHtml, '/settings/connections', signedIn, call));
    expect(page).toContain('<h2 class="session-device">GitHub</h2>');
    expect(page).toContain('<input type="hidden" name="_form" value="removeConnection"/>');
    expect(page).toContain('<form action="/users/connections/connect" method="post">');
    expect(page).toContain('<input type="hidden" name="provider" value="google"/>');
  });

  const indexHtml = readFileSync(new URL('../index.html', import.meta.url), 'utf8');
  const html = (document: { html: string } | { redirect: string }) => {
    if (!('html' in document)) throw new Error(`a redirect to ${document.redirect}`);
    return document.html;
  };
  const noQueries: QueryCall = (path) => Promise.reject(new Error(`no query expected: ${path}`));
  const pageData = (document: string) =>
    JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/.exec(document)![1]!);

  it('puts the page into index.html with the answers it was rendered from, which the app then does not ask for again', async () => {
    const signIn = html(await renderDocument(indexHtml, '/login', signedOut, noQueries));
    expect(signIn).toContain('<title>Sign in · Example ID</title>');
    expect(signIn).toMatch(/<div id="root">.*<h1 tabindex="-1">Sign in<\/h1>.*<\/div><script id="page-data"/s);
    expect(pageData(signIn)).toEqual(signedOut);
    // The settings came with it, and that nobody is signed in: no call is preloaded.
    expect(signIn).not.toContain('<link rel="preload" href="/trpc/');

    const account = html(await renderDocument(indexHtml, '/account', signedIn, noQueries));
    expect(account).not.toContain('<link rel="preload" href="/trpc/');
    expect(pageData(account)).toEqual(signedIn);
  });

  it("asks the page's own queries with it, and sends them along: the page arrives whole", async () => {
    const asked: [string, unknown][] = [];
    const call: QueryCall = (path, input) => {
      asked.push([path, input]);
      return Promise.resolve({
        sessions: [
          { id: 's-1', current: true, device: 'Firefox on Linux', address: null, createdAt: NOW, lastUsedAt: NOW },
        ],
      });
    };
    const document = html(await renderDocument(indexHtml, '/settings/sessions', signedIn, call));
    expect(asked).toEqual([['security.sessions', undefined]]);
    expect(document).toContain('Firefox on Linux');
    expect(pageData(document).queries.queries).toHaveLength(1);
    expect(document).not.toContain('<link rel="preload" href="/trpc/');
  });

  it('answers a signed-in page asked by nobody with where it sends them: sign-in, then back', async () => {
    expect(await renderDocument(indexHtml, '/settings/sessions', signedOut, noQueries)).toEqual({
      redirect: '/login?next=%2Fsettings%2Fsessions',
    });
    expect(await renderDocument(indexHtml, '/login', signedIn, noQueries)).toEqual({ redirect: '/account' });
  });

  it('escapes what people typed in the title and in the answers', async () => {
    const name = '</script><script>alert(1)</script>';
    const settings = { ...ACME_SETTINGS, realm: { ...ACME_SETTINGS.realm, name: 'A & <B>' } };
    const document = html(
      await renderDocument(indexHtml, '/account', { ...signedIn, settings, user: { ...ADA, name } }, noQueries),
    );
    expect(document).toContain(`<title>${pageTitle('Your account', 'A &#38; &#60;B&#62;', 'Example ID')}</title>`);
    expect(document).not.toContain('<script>alert(1)');
    expect(pageData(document).user.name).toBe(name);
    // The description names the product and the realm, escaped too.
    expect(document).toContain(
      '<meta name="description" content="Example ID: create your account in A &#38; &#60;B&#62;, sign in,',
    );
  });

  it("describes the page in the page's language", async () => {
    const document = html(await renderDocument(indexHtml, '/login', { ...signedOut, locale: 'de' }, noQueries));
    expect(document.match(/<meta\s+name="description"/g)).toHaveLength(1);
    expect(document).toContain('<meta name="description" content="Example ID: Erstellen Sie Ihr Konto, melden');
    // A named realm is named in it.
    const acme = html(await renderDocument(indexHtml, '/login', { ...signedOut, settings: ACME_SETTINGS }, noQueries));
    expect(acme).toContain('<meta name="description" content="Example ID: create your account in Acme Inc,');
  });
});
