import { ProblemError } from '@accounts/api';
import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function ownOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/**
 * Refuses state-changing requests from other origins. Realms are sibling subdomains, so
 * "same-site" is not enough: only the request's own origin or a trusted one may post.
 * A request with neither header (curl, a server) is not a browser acting for someone else.
 */
export function assertSameOrigin(req: FastifyRequest, trusted: readonly string[]) {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  if (origin !== undefined && trusted.includes(origin)) return;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new ProblemError('cross_origin');
  if (origin !== undefined && origin !== ownOrigin(req)) throw new ProblemError('cross_origin');
}
