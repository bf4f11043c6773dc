import { setupPlugin } from './setup-plugin.js';
import helmet from 'helmet';
import { pathOf } from '../request-target.js';

const API_PATH = /^\/(users|trpc)(\/|\?|$)/;

export interface HeadersOptions {
  /** Strict-Transport-Security's max-age on answers over https; 0 sends none. */
  hstsMaxAgeSeconds: number;
}

/**
 * The headers every answer carries: helmet's security headers, no-store on account answers,
 * and HSTS over https. helmet's middleware is built once, at start-up (@fastify/helmet builds it
 * again for every request, validating the options and parsing the CSP directives each time:
 * about 6% of the CPU of GET /users/me in a profile).
 */
export default setupPlugin<HeadersOptions>('headers', (app, { hstsMaxAgeSeconds }) => {
  const apply = helmet({
    // The web app's styles are files of its own origin: no other style source is needed.
    contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null, 'style-src': ["'self'"] } },
    // Sent below, and only over https.
    hsts: false,
    // Under "no-referrer" browsers send "Origin: null" with a same-origin form POST, which the
    // origin check must then refuse; "same-origin" keeps the real Origin and tells other sites nothing.
    referrerPolicy: { policy: 'same-origin' },
  });
  // helmet only sets headers; it throws (rather than calls back with) an error.
  app.addHook('onRequest', (req, reply, done) => apply(req.raw, reply.raw, () => done()));
  const hsts = `max-age=${hstsMaxAgeSeconds}; includeSubDomains`;
  app.addHook('onSend', async (req, reply) => {
    // Account answers are personal: no cache (browser or shared) may keep them.
    // Judged on the routed path: /%75sers/me and `GET http://host/users/me` are /users/me.
    if (API_PATH.test(pathOf(req))) reply.header('cache-control', 'no-store');
    // Realms are subdomains, so HSTS covers them too.
    if (hstsMaxAgeSeconds > 0 && req.protocol === 'https') reply.header('strict-transport-security', hsts);
  });
});
