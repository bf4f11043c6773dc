import { readdirSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST_DIR } from '../src/web-app.js';
import { startGateway, type Gateway } from './support/gateway.js';

// The web app's production build as the gateway serves it: compressed copies, cache lifetimes,
// the page fallback and the well-known address for password managers.

const html = { accept: 'text/html,application/xhtml+xml' };
const script = readdirSync(`${WEB_DIST_DIR}/assets`).find((f) => /^index-.*\.js$/.test(f))!;

describe('the web app as served by the gateway', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { SERVE_WEB: 'true', PRODUCT_NAME: 'Example ID' });
  });
  afterAll(() => gw.close());

  /** The raw bytes and headers, without undici decoding anything. */
  async function raw(path: string, headers: Record<string, string> = {}) {
    const res = await request(`http://127.0.0.1:${gw.port}${path}`, { headers: { host: `localhost:${gw.port}`, ...headers } });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  }

  it('sends hashed assets compressed (brotli, else gzip, else plain) and cached for a year', async () => {
    const plain = await raw(`/assets/${script}`, { 'accept-encoding': 'identity' });
    const br = await raw(`/assets/${script}`, { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await raw(`/assets/${script}`, { 'accept-encoding': 'gzip, deflate' });
    for (const res of [plain, br, gz]) {
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/javascript/);
    }
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('sends index.html, compressed, to be revalidated on every load, for the root and any page address', async () => {
    for (const path of ['/', '/login', '/settings?x=1', '/no/such/page']) {
      const res = await raw(path, { ...html, 'accept-encoding': 'gzip' });
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(res.body).toString(), path).toContain('<div id="root">');
    }
  });

  it('explains a page without JavaScript in the language the browser asks for, and only in that one', async () => {
    const cases = [
      ['de-CH,de;q=0.9,en;q=0.5', 'de', 'Diese Seite braucht JavaScript'],
      ['fr', 'fr', 'Cette page a besoin de JavaScript'],
      ['ja', 'en', 'This page needs JavaScript'],
    ] as const;
    for (const [acceptLanguage, lang, heading] of cases) {
      const res = await raw('/login', { ...html, 'accept-language': acceptLanguage, 'accept-encoding': 'br' });
      const page = brotliDecompressSync(res.body).toString();
      expect(res.headers['content-language']).toBe(lang);
      expect(res.headers.vary).toMatch(/accept-language/i);
      expect(page).toContain(`<html lang="${lang}">`);
      expect(page).toContain(`<h1>${heading}</h1>`);
      expect(page.match(/<h1>/g)).toHaveLength(1);
    }
  });

  it("draws the page's frame into index.html: product, realm, heading and title, in the request's language", async () => {
    const page = async (path: string, headers: Record<string, string> = {}) =>
      brotliDecompressSync((await raw(path, { ...html, 'accept-encoding': 'br', ...headers })).body).toString();
    const signIn = await page('/login', { 'accept-language': 'de' });
    expect(signIn).toContain('<title>Anmelden · Example ID</title>');
    expect(signIn).toContain('<a href="/" class="product-name">Example ID</a>');
    expect(signIn).toContain('<nav aria-label="Hauptmenü" aria-busy="true"></nav>');
    expect(signIn).toContain('<main id="main" class="page" tabindex="-1"><h1 tabindex="-1">Anmelden</h1></main>');
    expect(signIn).not.toContain('class="realm"');
    // A realm of its own is named; a trailing slash and a query do not change the page.
    const acme = await page('/settings/sessions/?x=1', { host: `acme.localhost:${gw.port}`, 'accept-language': 'fr' });
    expect(acme).toContain('<title>Où vous êtes connecté · Acme Inc · Example ID</title>');
    expect(acme).toContain('<span class="visually-hidden">Domaine\u00a0: </span><span class="realm-name">Acme Inc</span>');
    expect(acme).toContain('<h1 tabindex="-1">Où vous êtes connecté</h1>');
    // A page without a heading of its own gets the frame alone.
    const unknown = await page('/no/such/page');
    expect(unknown).toContain('<main id="main" class="page" tabindex="-1"></main>');
    expect(unknown).toContain('<title>Example ID</title>');
  });

  it('escapes what the frame takes from the configuration and the realm', async () => {
    const odd = await startGateway('pglite', { SERVE_WEB: 'true', PRODUCT_NAME: '<b>Ben & "Jerry"$&' });
    try {
      const res = await request(`http://127.0.0.1:${odd.port}/login`, { headers: { host: `localhost:${odd.port}`, ...html } });
      const page = await res.body.text();
      expect(page).toContain('<a href="/" class="product-name">&#60;b&#62;Ben &#38; &#34;Jerry&#34;$&#38;</a>');
      expect(page).not.toContain('<b>');
    } finally {
      await odd.close();
    }
  });

  it('has a favicon, so browsers get no 404 on every load', async () => {
    const res = await raw('/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const index = (await raw('/', html)).body.toString();
    expect(index).toContain('<link rel="icon" href="/favicon.svg"');
  });

  it('sends password managers from /.well-known/change-password to the settings page', async () => {
    const res = await raw('/.well-known/change-password');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/settings');
    const acme = await raw('/.well-known/change-password', { host: `acme.localhost:${gw.port}` });
    expect(acme.status).toBe(302);
    expect(acme.headers.location).toBe('/settings');
  });

  it('names the product as configured in the settings the web app reads', async () => {
    const res = await raw('/trpc/account.settings');
    expect(JSON.parse(res.body.toString()).result.data.productName).toBe('Example ID');
  });

  it('keeps API answers out of the page fallback', async () => {
    const res = await raw('/trpc/no.such', html);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/json/);
  });
});
