import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's security headers on every answer, registered as `app.register(securityHeaders,
 * options)` with helmet's options. @fastify/helmet builds helmet's middleware again for every
 * request (validating the options and parsing the CSP directives each time: about 6% of the
 * CPU of GET /users/me in a profile); this builds it once, at start-up.
 */
export default fp<HelmetOptions>(
  async (app, options) => {
    const apply = helmet(options);
    // helmet only sets headers; it throws (rather than calls back with) an error.
    app.addHook('onRequest', (req, reply, done) => apply(req.raw, reply.raw, () => done()));
  },
  { name: 'security-headers' },
);
