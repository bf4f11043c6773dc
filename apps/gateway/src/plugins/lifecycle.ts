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
  // The only request log: without bodies, cookies or headers.
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        realm: req.realm?.slug,
        method: req.method,
        route: req.routeOptions.url,
        path: req.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
});
