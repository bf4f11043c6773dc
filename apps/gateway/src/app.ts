import cookie from '@fastify/cookie';
import helmet from './security-headers.js';
import { callerFor, createAppRouter, notReady, ProblemError, type AccountConfig, type Hasher } from '@accounts/api';
import type { DatabaseHandle } from '@accounts/db';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import { parseFormBody } from './form-body.js';
import { registerFormRoutes } from './form-routes.js';
import { registerHealth } from './health.js';
import { registerOpenApi } from './openapi.js';
import { assertSameOrigin } from './origin-check.js';
import { answerClientError, sendProblem } from './problems.js';
import { createRateLimits } from './rate-limits.js';
import { isValidHost, realmLookup, realmSlugFromHost } from './realm-host.js';
import { assertTargetNamesHost, originForm, pathOf } from './request-target.js';
import { schedulePurge } from './retention-purge.js';
import { realmOrigin } from './mail/origin.js';
import { startMailSender } from './mail/sender.js';
import { registerTrpc } from './trpc-routes.js';
import { isEarlyFormPost, isPageRequest, registerWebApp } from './web-app.js';

export const BODY_LIMIT = 16 * 1024;
/** Header lines Node keeps of a request; a request with more is refused (431), not served without the rest. */
export const MAX_HEADER_LINES = 2000;

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  hasher: Hasher;
  /** A pino destination, for tests that read the log. */
  logStream?: NodeJS.WritableStream;
}

export function accountConfigFrom(config: Config): AccountConfig {
  return {
    passwordPolicy: { minLength: config.PASSWORD_MIN_LENGTH },
    sessionTtlMs: config.SESSION_TTL_HOURS * 3600_000,
    sessionIdleMs: config.SESSION_IDLE_HOURS * 3600_000,
    maxPasswordFailures: config.ACCOUNT_MAX_FAILURES,
    failureWindowMs: config.ACCOUNT_FAILURE_WINDOW_SECONDS * 1000,
    productName: config.PRODUCT_NAME,
    accountFailureCap: config.ACCOUNT_FAILURE_CAP,
    accountCapWindowMs: config.ACCOUNT_CAP_WINDOW_HOURS * 3600_000,
    knownDeviceTtlMs: config.KNOWN_DEVICE_DAYS * 24 * 3600_000,
    resetTokenTtlMs: config.MAIL_RESET_LINK_MINUTES * 60_000,
    verifyTokenTtlMs: config.MAIL_VERIFY_LINK_HOURS * 3600_000,
    mailCap: { requested: config.RATE_LIMIT_MAIL_PER_EMAIL, any: config.MAIL_RECIPIENT_CAP, windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000 },
  };
}

const UNREALMED = /^\/(healthz|readyz|openapi\.json)(\?|$)/;
const API_PATH = /^\/(users|trpc)(\/|\?|$)/;

/** The methods a 405's Allow header may list. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function hostHeaderCount(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

/**
 * Fastify 5.12 treats a bare hop count as "trust nothing"; a count is kept as Express defines it:
 * the socket's peer and the next `hops - 1` addresses from the right of X-Forwarded-For are proxies.
 * (Safe only when clients cannot reach the service around those proxies; docs/operations.md.)
 */
function trustProxyOption(setting: false | number | string[]) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

export async function buildApp({ config, database, hasher, logStream }: AppDeps): Promise<FastifyInstance & { draining: boolean }> {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // One line per request is written below, without bodies, cookies or headers.
    logController: new LogController({ disableRequestLogging: true }),
    logger: {
      level: config.LOG_LEVEL,
      ...(logStream ? { stream: logStream } : {}),
      redact: { paths: ['req.headers', 'headers', 'body', 'password', '*.password'], remove: true },
    },
    // Requests that arrive while stopping are refused by the hook below, as problem+json.
    return503OnClosing: false,
    // `GET http://host/path` is routed and judged as `/path`; its host is checked in the hook below.
    rewriteUrl: originForm,
    // Fastify answers a path it cannot decode (a stray "%") by itself; no route has such a path.
    frameworkErrors: (err, req, reply) => sendProblem(req, reply, err.code === 'FST_ERR_BAD_URL' ? new ProblemError('not_found') : err),
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
  }) as unknown as FastifyInstance & { draining: boolean };
  // Past this many open connections new ones are closed at once, so held connections cannot pile up.
  app.server.maxConnections = config.MAX_CONNECTIONS;
  // Node drops header lines past this count without a word (a proxy's X-Forwarded-For among
  // them); rawHeaders then holds more than the count, and the hook below refuses the request.
  app.server.maxHeadersCount = MAX_HEADER_LINES;
  app.decorate('draining', false);
  // Stopping starts with close(): from then on /readyz and every new request answer 503.
  app.addHook('preClose', async () => {
    app.draining = true;
  });
  // While stopping, each answer closes its connection: a keep-alive client (a load balancer's
  // pool) would otherwise hold the server open until the shutdown timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });

  await app.register(helmet, {
    // The web app's styles are files of its own origin: no other style source is needed.
    contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null, 'style-src': ["'self'"] } },
    // Sent below, and only over https.
    hsts: false,
    // Under "no-referrer" browsers send "Origin: null" with a same-origin form POST, which the
    // origin check must then refuse; "same-origin" keeps the real Origin and tells other sites nothing.
    referrerPolicy: { policy: 'same-origin' },
  });
  const hsts = `max-age=${config.HSTS_MAX_AGE_SECONDS}; includeSubDomains`;
  app.addHook('onSend', async (req, reply) => {
    // Account answers are personal: no cache (browser or shared) may keep them.
    // Judged on the routed path: /%75sers/me and `GET http://host/users/me` are /users/me.
    if (API_PATH.test(pathOf(req))) reply.header('cache-control', 'no-store');
    // Realms are subdomains, so HSTS covers them too.
    if (config.HSTS_MAX_AGE_SECONDS > 0 && req.protocol === 'https') reply.header('strict-transport-security', hsts);
  });
  await app.register(cookie);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (err) {
      done(err as Error);
    }
  });

  app.setErrorHandler((err, req, reply) => sendProblem(req, reply, err));
  app.setNotFoundHandler(async (req, reply) => {
    if (isPageRequest(req) && req.realm && sendPage) return sendPage(req, reply);
    if (isEarlyFormPost(req) && req.realm && sendPage) return reply.redirect(req.url.replace(/^[/\\]+/, '/'), 303); // never to another host (//evil.example)
    // A route that exists, asked with a method it does not take (RFC 9110 §15.5.6).
    const allow = METHODS.filter((method) => app.findRoute({ method, url: req.url }));
    if (allow.length) reply.header('allow', allow.join(', '));
    return sendProblem(req, reply, new ProblemError(allow.length ? 'method_not_allowed' : 'not_found'));
  });

  const findRealmCached = realmLookup(database.db);
  app.addHook('onRequest', async (req, reply) => {
    // Node kept only MAX_HEADER_LINES of them: what it dropped could be the header that matters.
    if (req.raw.rawHeaders.length / 2 > MAX_HEADER_LINES) throw new ProblemError('headers_too_large');
    // An HTTP/1.0 message with Transfer-Encoding has faulty framing (RFC 9112 §6.1): refused, and
    // the connection closed, so nothing after it is read as a request of its own.
    if (req.raw.httpVersion === '1.0' && req.headers['transfer-encoding'] !== undefined) {
      reply.header('connection', 'close');
      throw new ProblemError('invalid_body');
    }
    // A request on a connection still open while stopping: the load balancer should go elsewhere.
    if (app.draining) throw notReady();
    // Two Host headers are a malformed request (RFC 9112 §3.2), not one to serve by the first.
    if (hostHeaderCount(req.raw.rawHeaders) > 1) throw new ProblemError('invalid_body');
    // So is a Host that is not host[:port]; the host a trusted proxy forwards (req.host) too.
    // No Host at all (or an empty one) names no realm, which the realm check answers.
    if ((req.headers.host && !isValidHost(req.headers.host)) || (req.host && !isValidHost(req.host))) throw new ProblemError('invalid_host');
    assertTargetNamesHost(req);
    if (UNREALMED.test(pathOf(req))) return;
    const slug = realmSlugFromHost(req.hostname, config.ROOT_DOMAIN);
    const realm = slug ? await findRealmCached(slug) : null;
    if (!realm) throw new ProblemError('realm_not_found');
    req.realm = realm;
    assertSameOrigin(req, config.TRUSTED_ORIGINS);
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      { realm: req.realm?.slug, method: req.method, route: req.routeOptions.url, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  const limits = createRateLimits(app, config);
  app.addHook('onClose', () => limits.close());
  const router = createAppRouter(accountConfigFrom(config));
  const services = { db: database.db, hasher, router, createCaller: callerFor(router), limit: limits.limit, originOf: (req: FastifyRequest) => realmOrigin(req.realm?.slug, config) };
  schedulePurge(app, database.db, accountConfigFrom(config), config);
  startMailSender(app, database.db, config);

  registerHealth(app, database);
  registerOpenApi(app, router);
  registerFormRoutes(app, services);
  await registerTrpc(app, services);
  const sendPage = config.SERVE_WEB ? await registerWebApp(app, services) : null;
  return app;
}
