import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import { ProblemError, type AccountConfig, type Hasher } from '@accounts/api';
import type { DatabaseHandle } from '@accounts/db';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { parseFormBody } from './form-body.js';
import { registerFormRoutes } from './form-routes.js';
import { registerHealth } from './health.js';
import { assertSameOrigin } from './origin-check.js';
import { answerClientError, sendProblem } from './problems.js';
import { registerRateLimits } from './rate-limits.js';
import { realmLookup, realmSlugFromHost } from './realm-host.js';
import { registerTrpc } from './trpc-routes.js';
import { isPageRequest, registerWebApp } from './web-app.js';

export const BODY_LIMIT = 16 * 1024;

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
  };
}

const UNREALMED = /^\/(healthz|readyz)(\?|$)/;

export async function buildApp({ config, database, hasher, logStream }: AppDeps): Promise<FastifyInstance & { draining: boolean }> {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: config.TRUST_PROXY as boolean | string[],
    // One line per request is written below, without bodies, cookies or headers.
    logController: new LogController({ disableRequestLogging: true }),
    logger: {
      level: config.LOG_LEVEL,
      ...(logStream ? { stream: logStream } : {}),
      redact: { paths: ['req.headers', 'headers', 'body', 'password', '*.password'], remove: true },
    },
    return503OnClosing: true,
    // Fastify answers a path it cannot decode (a stray "%") by itself; no route has such a path.
    frameworkErrors: (err, req, reply) => sendProblem(req, reply, err.code === 'FST_ERR_BAD_URL' ? new ProblemError('not_found') : err),
    clientErrorHandler: answerClientError,
    // A request without Host reaches the realm check (404 problem+json) instead of Node's empty 400.
    http: { requireHostHeader: false },
  }) as unknown as FastifyInstance & { draining: boolean };
  app.decorate('draining', false);
  // While stopping, each answer closes its connection: a keep-alive client (a load balancer's
  // pool) would otherwise hold the server open until the shutdown timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });

  await app.register(helmet, {
    contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } },
    hsts: false,
  });
  await app.register(cookie);
  await app.register(formbody, { parser: parseFormBody });

  app.setErrorHandler((err, req, reply) => sendProblem(req, reply, err));
  app.setNotFoundHandler(async (req, reply) => {
    if (isPageRequest(req) && req.realm && servesWeb) return reply.header('cache-control', 'no-cache').sendFile('index.html');
    return sendProblem(req, reply, new ProblemError('not_found'));
  });

  const findRealmCached = realmLookup(database.db);
  app.addHook('onRequest', async (req) => {
    if (UNREALMED.test(req.url)) return;
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

  const limits = await registerRateLimits(app, config);
  app.addHook('onClose', () => limits.close());
  const services = { db: database.db, hasher, accounts: accountConfigFrom(config), limit: limits.limit };

  registerHealth(app, database);
  registerFormRoutes(app, services);
  await registerTrpc(app, services);
  const servesWeb = config.SERVE_WEB && (await registerWebApp(app));
  return app;
}
