import type { IncomingMessage, ServerResponse } from 'node:http';
import middie from '@fastify/middie';
import {
  ProblemError,
  signedInSession,
  signingKeysVersion,
  type AccountConfig,
  type Database,
  type Realm,
  type Vault,
} from '@accounts/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { callProcedure } from '../form-adapter.js';
import { contextFor, type Services } from '../request-context.js';
import { pathOf } from '../request-target.js';
import { isSecureRequest } from '../secure-request.js';
import { clearedSessionCookie, sessionCookieOf } from '../session-transport.js';
import { registerInteractions, watchAppSignIns } from './interactions.js';
import { startLogoutSender } from './logout-sender.js';
import { buildRealmProvider, type ProviderDeps, type RealmProvider } from './provider.js';

// The provider is a Koa app, mounted with @fastify/middie ahead of the routes: a request for one
// of its addresses is answered by the realm's provider once the gateway's own hooks have run
// (security headers, framing, draining, the realm from the Host: a Host naming no realm is 404
// before any provider sees it). Our sign-in and consent pages are fastify routes (interactions.ts).

/** The provider's own addresses: every /oauth2/ endpoint but our interaction pages, and discovery. */
const PROVIDER_PATH =
  /^\/(?:oauth2\/(?!interaction(?:\/|$))|\.well-known\/(?:openid-configuration|oauth-authorization-server)$)/;

/** Whether the provider answers this path (the token endpoint and its kin take cross-origin POSTs by design). */
export const isProviderPath = (path: string) => PROVIDER_PATH.test(path);

export interface OidcServices {
  db: Database;
  vault: Vault;
  config: Config;
  accounts: AccountConfig;
  /** What the procedures run against: a sign-out from an app runs the sign-out procedure. */
  services: Services;
}

/** Providers kept built at once (each is a Koa app with its keys and caches). */
const MAX_PROVIDERS = 1000;

/** The fastify request of a raw one the provider is handed (set by a hook ahead of middie's), and its reply. */
const requests = new WeakMap<IncomingMessage, FastifyRequest>();
const replies = new WeakMap<IncomingMessage, FastifyReply>();

/**
 * The realms' providers, built at a realm's first use and kept while its signing keys stay the
 * same: a rotation by `npm run client -- rotate-keys` (in any process) is seen at the next request.
 */
function realmProviders(deps: ProviderDeps, onBuilt: (built: RealmProvider, realm: Realm) => void) {
  const built = new Map<string, Promise<RealmProvider>>();
  return async (realm: Realm): Promise<RealmProvider> => {
    const version = await signingKeysVersion(deps.db, realm.id);
    const cached = built.get(realm.id);
    if (cached) {
      const current = await cached.catch(() => null);
      if (current && current.keysVersion === version) return current;
    }
    const building = buildRealmProvider(realm, deps).then((built) => {
      onBuilt(built, realm);
      return built;
    });
    // A provider per realm in use; a deployment with very many realms builds them again as needed.
    if (built.size >= MAX_PROVIDERS && !built.has(realm.id)) built.clear();
    built.set(realm.id, building);
    building.catch(() => built.delete(realm.id));
    return building;
  };
}

/** A CSP without form-action: the provider's form_post answer posts to the app's own address. */
const withoutFormAction = (csp: string) =>
  csp
    .split(';')
    .filter((d) => !/^\s*form-action\b/.test(d))
    .join(';');

export async function registerOidc(
  app: FastifyInstance & { draining: boolean },
  services: OidcServices,
): Promise<void> {
  const { db, config, accounts } = services;
  const deps: ProviderDeps = {
    db,
    vault: services.vault,
    config,
    log: app.log,
    signInOf: async (raw) => {
      const req = requests.get(raw);
      if (!req?.realm) return null;
      return signedInSession(db, req.realm, sessionCookieOf(req), accounts);
    },
    async signOutHere(koa) {
      const req = requests.get(koa.req);
      const reply = replies.get(koa.req);
      if (!req?.realm || !reply) return;
      await callProcedure(
        services.services,
        'account.signOut',
        contextFor(req, reply, services.services).ctx,
        undefined,
      );
      // The provider writes this response itself, so the cleared cookie goes on it directly.
      koa.append('set-cookie', clearedSessionCookie(req));
    },
  };
  const providerOf = realmProviders(deps, ({ provider }, realm) =>
    watchAppSignIns(provider, realm, { db, config, accounts, log: app.log, requestOf: (raw) => requests.get(raw) }),
  );
  startLogoutSender(app, db, providerOf);
  const callbacks = new WeakMap<RealmProvider, (req: IncomingMessage, res: ServerResponse) => Promise<void>>();
  const hsts = config.HSTS_MAX_AGE_SECONDS > 0 ? `max-age=${config.HSTS_MAX_AGE_SECONDS}; includeSubDomains` : null;

  app.addHook('onRequest', (req, reply, done) => {
    requests.set(req.raw, req);
    replies.set(req.raw, reply);
    // The sign-in page of a sign-in to an app: its form's answer leads, through redirects, to the
    // app's own address, which a browser enforcing form-action on redirects would refuse.
    const next = (req.query as Record<string, unknown> | undefined)?.next;
    // (The page a first step's POST answers with, the second step's, is such a page too.)
    if (pathOf(req) === '/login' && typeof next === 'string' && next.startsWith('/oauth2/')) {
      const csp = reply.raw.getHeader('content-security-policy');
      if (typeof csp === 'string') reply.raw.setHeader('content-security-policy', withoutFormAction(csp));
    }
    done();
  });
  await app.register(middie);
  const dispatch = async (req: FastifyRequest, res: ServerResponse) => {
    const realm = req.realm;
    if (!realm) throw new ProblemError('realm_not_found');
    const built = await providerOf(realm);
    let callback = callbacks.get(built);
    if (!callback) callbacks.set(built, (callback = built.provider.callback()));
    const issuer = new URL(built.provider.issuer);
    // The provider's view of the request: the configured origin, and the address fastify trusted.
    req.raw.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    req.raw.headers['x-forwarded-host'] = issuer.host;
    req.raw.headers['x-forwarded-for'] = req.ip;
    const csp = res.getHeader('content-security-policy');
    if (typeof csp === 'string') res.setHeader('content-security-policy', withoutFormAction(csp));
    if (hsts && isSecureRequest(req)) res.setHeader('strict-transport-security', hsts);
    await callback(req.raw, res);
  };
  app.use((raw: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
    const req = requests.get(raw);
    if (!req || !isProviderPath(pathOf(req))) return next();
    dispatch(req, res).catch(next);
  });
  // The addresses exist for fastify too (their route names in the log and metrics); the provider
  // has answered before a handler could run.
  const answered = () => Promise.reject(new ProblemError('not_found'));
  app.all('/oauth2/*', answered);
  app.get('/.well-known/openid-configuration', answered);
  app.get('/.well-known/oauth-authorization-server', answered);
  registerInteractions(app, { db, providerOf, signInOf: (req) => deps.signInOf(req.raw) });
}
