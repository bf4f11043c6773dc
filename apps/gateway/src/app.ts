import cookie from '@fastify/cookie';
import {
  callerFor,
  createAppRouter,
  ProblemError,
  type AccountConfig,
  type Database,
  type Hasher,
  type ProcedureObserver,
  type Vault,
} from '@accounts/api';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { alwaysSecure, mailCapFrom, serviceNameOf, type Config } from './config.js';
import type { Metrics } from './metrics.js';
import { registerFormRoutes } from './form-adapter.js';
import { registerHealth } from './health.js';
import { realmOrigin } from './mail/origin.js';
import { startMailSender } from './mail/sender.js';
import { registerOidc } from './oidc/mount.js';
import { registerOpenApi } from './openapi.js';
import formParser from './plugins/form-parser.js';
import framing from './plugins/framing.js';
import headers from './plugins/headers.js';
import lifecycle from './plugins/lifecycle.js';
import realm from './plugins/realm.js';
import refusals from './plugins/refusals.js';
import { answerClientError, sendProblem } from './problems.js';
import { createRateLimits } from './rate-limits.js';
import { originForm, pathOf } from './request-target.js';
import { schedulePurge } from './retention-purge.js';
import { registerTrpc } from './trpc-routes.js';
import { answerPagePost, registerPagePosts } from './page-posts.js';
import { isPagePost, isPageRequest, registerWebApp } from './web-app.js';

export const BODY_LIMIT = 16 * 1024;

export interface AppDeps {
  config: Config;
  db: Database;
  hasher: Hasher;
  /** What SECRET_KEY protects (see server.ts for where the key comes from). */
  vault: Vault;
  /** A pino destination, for tests that read the log. */
  logStream?: NodeJS.WritableStream;
  /** METRICS_PORT's counters (server.ts serves them); none: nothing is counted. */
  metrics?: Metrics;
  /** Told of each procedure call (metrics, traces). */
  observer?: ProcedureObserver;
  /** Fields added to every log line (the trace and span ids, when traces are on). */
  logMixin?: () => Record<string, unknown>;
}

export function accountConfigFrom(config: Config): AccountConfig {
  return {
    passwordPolicy: { minLength: config.PASSWORD_MIN_LENGTH },
    sessionTtlMs: config.SESSION_TTL_HOURS * 3600_000,
    sessionIdleMs: config.SESSION_IDLE_HOURS * 3600_000,
    maxPasswordFailures: config.ACCOUNT_MAX_FAILURES,
    failureWindowMs: config.ACCOUNT_FAILURE_WINDOW_SECONDS * 1000,
    productName: serviceNameOf(config),
    accountFailureCap: config.ACCOUNT_FAILURE_CAP,
    accountCapWindowMs: config.ACCOUNT_CAP_WINDOW_HOURS * 3600_000,
    knownDeviceTtlMs: config.KNOWN_DEVICE_DAYS * 24 * 3600_000,
    resetTokenTtlMs: config.MAIL_RESET_LINK_MINUTES * 60_000,
    verifyTokenTtlMs: config.MAIL_VERIFY_LINK_HOURS * 3600_000,
    mailCap: mailCapFrom(config),
    allowPrivateOutbound: config.ALLOW_PRIVATE_OUTBOUND,
  };
}

/** The methods a 405's Allow header may list. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Fastify 5.12 treats a bare hop count as "trust nothing"; a count is kept as Express defines it:
 * the socket's peer and the next `hops - 1` addresses from the right of X-Forwarded-For are proxies.
 * (Safe only when clients cannot reach the service around those proxies; docs/operations.md.)
 */
function trustProxyOption(setting: false | number | string[]) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

function createFastify(
  config: Config,
  logStream?: NodeJS.WritableStream,
  logMixin?: () => Record<string, unknown>,
): FastifyInstance {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // One line per request is written by the lifecycle plugin, without bodies, cookies or headers.
    logController: new LogController({ disableRequestLogging: true }),
    logger: {
      level: config.LOG_LEVEL,
      ...(logStream ? { stream: logStream } : {}),
      ...(logMixin ? { mixin: logMixin } : {}),
      redact: { paths: ['req.headers', 'headers', 'body', 'password', '*.password'], remove: true },
    },
    // Requests that arrive while stopping are refused by the lifecycle plugin, as problem+json.
    return503OnClosing: false,
    // `GET http://host/path` is routed and judged as `/path`; the realm plugin checks its host.
    rewriteUrl: originForm,
    // Fastify answers a path it cannot decode (a stray "%") by itself; no route has such a path.
    // (fastify ignores what this returns: the reply sendProblem hands back is not waited for.)
    frameworkErrors: (err, req, reply) =>
      void sendProblem(req, reply, err.code === 'FST_ERR_BAD_URL' ? new ProblemError('not_found') : err),
    clientErrorHandler: answerClientError,
    // Slow clients: a request must have fully arrived within REQUEST_TIMEOUT_SECONDS (its headers
    // within HEADERS_TIMEOUT_SECONDS), and a connection with nothing going on is closed after
    // IDLE_TIMEOUT_SECONDS; answers were written when a timeout cuts a client off.
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    connectionTimeout: config.IDLE_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.IDLE_TIMEOUT_SECONDS * 1000,
    http: {
      // A request without Host reaches the realm check (404 problem+json) instead of Node's empty 400.
      requireHostHeader: false,
      requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_SECONDS, config.REQUEST_TIMEOUT_SECONDS) * 1000,
      // Node checks those timeouts on this interval (30 s by default, which would double them).
      connectionsCheckingInterval: 1000,
    },
  });
  // Past this many open connections new ones are closed at once, so held connections cannot pile up.
  app.server.maxConnections = config.MAX_CONNECTIONS;
  return app;
}

/**
 * The gateway's routes and hooks on a new fastify instance (nothing listens yet; createServer
 * in server.ts starts and stops it). The plugins' onRequest hooks run in the order registered:
 * security headers, framing, draining, then the Host and its realm.
 */
export async function buildApp({
  config,
  db,
  hasher,
  vault,
  logStream,
  metrics,
  observer,
  logMixin,
}: AppDeps): Promise<FastifyInstance> {
  const app = createFastify(config, logStream, logMixin);
  if (metrics)
    app.addHook('onResponse', async (req, reply) => {
      // A route's template; pages shown and unknown paths (the not-found handler) share one name.
      metrics.request(req.routeOptions.url ?? '(unmatched)', req.method, reply.statusCode, reply.elapsedTime / 1000);
    });
  await app.register(headers, { hstsMaxAgeSeconds: config.HSTS_MAX_AGE_SECONDS, alwaysSecure: alwaysSecure(config) });
  await app.register(cookie);
  await app.register(formParser);
  await app.register(framing);
  await app.register(lifecycle);
  await app.register(realm, {
    db,
    rootDomain: config.ROOT_DOMAIN,
    serviceName: serviceNameOf(config),
    trustedOrigins: config.TRUSTED_ORIGINS,
  });
  await app.register(refusals, { db });

  app.setErrorHandler((err, req, reply) => sendProblem(req, reply, err));
  app.setNotFoundHandler(async (req, reply) => {
    if (isPageRequest(req) && req.realm && pages) return pages.send(req, reply);
    // A page's form posted to an address without a page route (page-posts.ts): the not-found page's sign-out.
    if (isPagePost(req) && req.realm && pages) return answerPagePost(req, reply, services, pages);
    // A route that exists, asked with a method it does not take (RFC 9110 §15.5.6). A page's POST
    // route takes only its forms: it makes no API of the page's address.
    const pagePost = (method: string) => method === 'POST' && pages?.formPages.includes(pathOf(req));
    const allow = METHODS.filter((method) => app.findRoute({ method, url: req.url }) && !pagePost(method));
    if (allow.length) reply.header('allow', allow.join(', '));
    return sendProblem(req, reply, new ProblemError(allow.length ? 'method_not_allowed' : 'not_found'));
  });

  const limits = createRateLimits(app, config, metrics?.rateLimited);
  app.addHook('onClose', () => limits.close());
  const accounts = accountConfigFrom(config);
  const router = createAppRouter(accounts);
  const services = {
    db,
    hasher,
    vault,
    router,
    createCaller: callerFor(router),
    limit: limits.limit,
    originOf: (req: FastifyRequest) => realmOrigin(req.realm?.slug, config),
    observer,
  };
  schedulePurge(app, db, accounts, config);
  startMailSender(app, db, config, vault, metrics);

  registerHealth(app, { db });
  // Ahead of the other routes: the provider answers its addresses from an onRequest hook.
  await registerOidc(app, { db, vault, config, accounts, services });
  registerOpenApi(app, router);
  registerFormRoutes(app, services);
  await registerTrpc(app, services);
  const pages = config.SERVE_WEB ? await registerWebApp(app, services, config.WEB_DIST_DIR) : null;
  if (pages) registerPagePosts(app, services, pages);
  return app;
}
