import type { LookupFunction } from 'node:net';
import { createClient, type NewClient } from '@accounts/api';
import type { Driver } from '@accounts/db';
import { freePort, type Response } from '@accounts/testing';
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { expect } from 'vitest';
import { registration, startGateway, type Gateway } from './gateway.js';

// The OpenID Connect tests' parts: a gateway whose configured origin is the port it listens on
// (the issuer is http://localhost:<port>, http://acme.localhost:<port>), openid-client as the app,
// and a browser: a cookie jar per host that follows the service's redirects.

/** A gateway listening on the port its configuration names, so its issuers are reachable. */
export async function startOidcGateway(
  driver: Driver,
  env: Record<string, string> = {},
  sharing?: Gateway,
): Promise<Gateway> {
  const port = await freePort();
  return startGateway(driver, { PORT: String(port), PUBLIC_PORT: String(port), ...env }, sharing);
}

export const issuerOf = (gw: Gateway, realm = 'default') =>
  realm === 'default' ? `http://localhost:${gw.port}` : `http://${realm}.localhost:${gw.port}`;

/** Every host name to 127.0.0.1, as a browser resolves *.localhost. */
const toLoopback: LookupFunction = (_host, options, callback) => {
  if (options.all)
    (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};
const loopback = new Agent({ connect: { lookup: toLoopback } });
export const rpFetch: oidc.CustomFetch = (url, options) => undiciFetch(url, { ...options, dispatcher: loopback });

/** An app registered in the realm, and openid-client configured for it from the realm's discovery. */
export async function relyingParty(
  gw: Gateway,
  realm = 'default',
  client: Partial<NewClient> = {},
): Promise<{ config: oidc.Configuration; clientId: string; clientSecret: string | null; redirectUri: string }> {
  const redirectUri = client.redirectUris?.[0] ?? 'http://127.0.0.1:9/callback';
  const { client: registered, clientSecret } = await createClient(gw.db.db, realm, {
    name: 'Test App',
    redirectUris: [redirectUri],
    ...client,
  });
  const config = await oidc.discovery(
    new URL(issuerOf(gw, realm)),
    registered.clientId,
    undefined,
    clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
    { execute: [oidc.allowInsecureRequests], [oidc.customFetch]: rpFetch },
  );
  return { config, clientId: registered.clientId, clientSecret, redirectUri };
}

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** A browser without scripts: cookies per host (with their paths), redirects followed by hand. */
export class Browser {
  private jar = new Map<string, Cookie[]>();
  constructor(private gw: Gateway) {}

  private cookieHeader(host: string, path: string) {
    const pathOnly = path.split('?')[0]!;
    return (this.jar.get(host) ?? [])
      .filter((c) => pathOnly === c.path || pathOnly.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private keep(host: string, res: Response) {
    const cookies = this.jar.get(host) ?? [];
    for (const line of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const gone = value === '' || attrs.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
      const rest = cookies.filter((c) => !(c.name === name && c.path === path));
      cookies.length = 0;
      cookies.push(...rest, ...(gone ? [] : [{ name, value, path }]));
    }
    this.jar.set(host, cookies);
  }

  /** The host (with port) and path of an address of the gateway. */
  private target(url: string) {
    const u = new URL(url);
    return { host: u.hostname, path: u.pathname + u.search };
  }

  async send(method: string, url: string, body?: Record<string, string>): Promise<Response> {
    const { host, path } = this.target(url);
    // As a browser: pages and a page's forms are asked for as HTML.
    const headers: Record<string, string> = { 'accept-language': 'en', accept: 'text/html' };
    const cookie = this.cookieHeader(host, path);
    if (cookie) headers.cookie = cookie;
    const res = body
      ? await this.gw.form(path, body, { host, headers })
      : await this.gw.send(method, path, { host, headers });
    this.keep(host, res);
    return res;
  }

  /** POSTs JSON (the passkey routes'), keeping the cookies of the answer. */
  async postJson(url: string, body: unknown): Promise<Response> {
    const { host, path } = this.target(url);
    const cookie = this.cookieHeader(host, path);
    const res = await this.gw.send('POST', path, {
      host,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    this.keep(host, res);
    return res;
  }

  /**
   * Follows the service's redirects from `url` until an answer that is not one, a redirect away
   * from the gateway (to the app) or to the sign-in page: that answer, and the address it leads to.
   */
  async follow(url: string, first?: Response): Promise<{ res: Response; url: string }> {
    let res = first ?? (await this.send('GET', url));
    let at = url;
    for (let hops = 0; hops < 20 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(String(res.headers.location), at);
      at = next.href;
      if (!next.hostname.endsWith('localhost') || next.port !== String(this.gw.port)) return { res, url: at };
      // The sign-in page is the web app's (not served here): the test signs in itself.
      if (next.pathname === '/login') return { res, url: at };
      res = await this.send('GET', at);
    }
    return { res, url: at };
  }

  /** Registers an account in the realm of `origin` (its session cookie kept in the jar). */
  async register(origin: string, email: string) {
    const res = await this.send('POST', `${origin}/users/register`, registration(email));
    expect(res.status, res.text).toBe(201);
    return res;
  }
}

/** An authorization request with PKCE (S256), state and nonce, as openid-client builds it. */
export async function authorizationRequest(
  rp: { config: oidc.Configuration; redirectUri: string },
  params: Record<string, string> = {},
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(rp.config, {
    redirect_uri: rp.redirectUri,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  });
  return { url, verifier, state, nonce };
}

/** The code exchanged for tokens by the app, checking state, nonce, PKCE and the ID token. */
export function exchange(
  rp: { config: oidc.Configuration },
  callback: string,
  req: { verifier: string; state: string; nonce: string },
) {
  return oidc.authorizationCodeGrant(rp.config, new URL(callback), {
    pkceCodeVerifier: req.verifier,
    expectedState: req.state,
    expectedNonce: req.nonce,
    idTokenExpected: true,
  });
}

/** Signs in to the app: authorize, our pages (consent allowed when asked), back at the app with a code. */
export async function signInToApp(
  browser: Browser,
  rp: { config: oidc.Configuration; redirectUri: string },
  params: Record<string, string> = {},
) {
  const req = await authorizationRequest(rp, params);
  let { res, url } = await browser.follow(req.url.href);
  if (res.status === 200 && res.text.includes('name="decision"')) {
    const action = new URL(/action="([^"]+)"/.exec(res.text)![1]!, url).href;
    ({ res, url } = await browser.follow(action, await browser.send('POST', action, { decision: 'allow' })));
  }
  expect(url, res.text).toMatch(new RegExp(`^${rp.redirectUri}\\?`));
  return { req, callback: url };
}
