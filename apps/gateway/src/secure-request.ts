import type { FastifyRequest } from 'fastify';

/**
 * Whether a request's cookies are Secure and __Host- prefixed (and its answer carries HSTS):
 * configured so (COOKIE_SECURE, or an https PUBLIC_URL: a TLS proxy in front may hide the scheme),
 * or it came over https. Every cookie the gateway names, sets or clears asks this.
 */
export const isSecureRequest = (req: FastifyRequest) => req.server.alwaysSecure || req.protocol === 'https';
