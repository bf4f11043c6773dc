import { isIP } from 'node:net';
import { setupPlugin } from './setup-plugin.js';
import helmet from 'helmet';
import { pathOf } from '../request-target.js';
import { isSecureRequest } from '../secure-request.js';

const API_PATH = /^\/(users|trpc)(\/|\?|$)/;

declare module 'fastify' {
  interface FastifyInstance {
    /** Cookies always Secure and __Host- prefixed, HSTS always sent (HeadersOptions.alwaysSecure). */
    alwaysSecure: boolean;
  }
}

export interface HeadersOptions {
  /** Strict-Transport-Security's max-age on answers over https; 0 sends none. */
  hstsMaxAgeSeconds: number;
  /** HSTS on every answer, whatever the request's scheme looks like (COOKIE_SECURE, or an https PUBLIC_URL). */
  alwaysSecure?: boolean;
}

/** Whether a client address is this machine's own (a local proxy, a developer's browser). */
export function isLoopback(ip: string | undefined): boolean {
  if (!ip || !isIP(ip)) return false;
  return ip === '::1' || /^(::ffff:)?127\./i.test(ip);
}

/**
 * The headers every answer carries: helmet's security headers, no-store on account answers,
 * and HSTS over https. helmet's middleware is built once, at start-up (@fastify/helmet builds it
 * again for every request, validating the options and parsing the CSP directives each time:
 * about 6% of the CPU of GET /users/me in a profile).
 */
export default setupPlugin<HeadersOptions>('headers', (app, { hstsMaxAgeSeconds, alwaysSecure = false }) => {
  app.decorate('alwaysSecure', alwaysSecure);
  const apply = helmet({
    // The web app's styles are files of its own origin: no other style source is needed. No page
    // may be framed, and no <base> may move where relative links and forms go.
    contentSecurityPolicy: {
      directives: {
        'upgrade-insecure-requests': null,
        'style-src': ["'self'"],
        'base-uri': ["'none'"],
        'frame-ancestors': ["'none'"],
      },
    },
    // Sent below, and only over https.
    hsts: false,
    // As frame-ancestors 'none', for browsers that only know this header.
    xFrameOptions: { action: 'deny' },
    // Under "no-referrer" browsers send "Origin: null" with a same-origin form POST, which the
    // origin check must then refuse; "same-origin" keeps the real Origin and tells other sites nothing.
    referrerPolicy: { policy: 'same-origin' },
  });
  // helmet only sets headers; it throws (rather than calls back with) an error.
  app.addHook('onRequest', (req, reply, done) => apply(req.raw, reply.raw, () => done()));
  // Plain http from another machine, without COOKIE_SECURE or an https PUBLIC_URL: a TLS proxy in
  // front that TRUST_PROXY does not name would make every cookie plain. Said once, not per request.
  let warned = alwaysSecure;
  app.addHook('onRequest', (req, _reply, done) => {
    if (!warned && req.protocol === 'http' && !isLoopback(req.ip)) {
      warned = true;
      app.log.warn(
        { clientIp: req.ip },
        'a request arrived over plain http from another machine: cookies are not Secure and no HSTS is sent; behind a TLS proxy set PUBLIC_URL=https://… or COOKIE_SECURE=true (and TRUST_PROXY)',
      );
    }
    done();
  });
  const hsts = `max-age=${hstsMaxAgeSeconds}; includeSubDomains`;
  app.addHook('onSend', async (req, reply) => {
    // Account answers are personal: no cache (browser or shared) may keep them.
    // Judged on the routed path: /%75sers/me and `GET http://host/users/me` are /users/me.
    if (API_PATH.test(pathOf(req))) reply.header('cache-control', 'no-store');
    // Realms are subdomains, so HSTS covers them too.
    if (hstsMaxAgeSeconds > 0 && isSecureRequest(req)) reply.header('strict-transport-security', hsts);
  });
});
