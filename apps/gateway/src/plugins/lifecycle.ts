import { notReady } from '@accounts/api';
import { setupPlugin } from './setup-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** True from the moment close() begins: /readyz and every new request then answer 503. */
    draining: boolean;
  }
}

/**
 * Stopping and the access log: from close() on, a request on a connection still open is refused
 * (503 not_ready) and every answer closes its connection; one log line per request.
 */
export default setupPlugin('lifecycle', (app) => {
  app.decorate('draining', false);
  app.addHook('preClose', (next) => {
    app.draining = true;
    next();
  });
  // While stopping, each answer closes its connection: a keep-alive client (a load balancer's
  // pool) would otherwise hold the server open until the shutdown timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });
  // A request on a connection still open while stopping: the load balancer should go elsewhere.
  app.addHook('onRequest', (_req, _reply, next) => {
    if (app.draining) return next(notReady());
    next();
  });
  // The only request log: without bodies, cookies, headers or the query string (where a mailed
  // link's token would be); the client's address and the account's id (never its email), and
  // pino's reqId to find the request's events (account_events.request_id).
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        realm: req.realm?.slug,
        method: req.method,
        route: req.routeOptions.url,
        path: req.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        clientIp: req.ip,
        ...(req.accountId ? { userId: req.accountId } : {}),
        ...(req.problemCode ? { problem: req.problemCode } : {}),
      },
      'request',
    );
  });
});
