import type { IncomingMessage } from 'node:http';
import { ProblemError } from '@accounts/api';
import type { FastifyRequest } from 'fastify';

/** `scheme://authority` in front of an absolute-form request-target (`GET http://host/path`). */
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;

/** The scheme and authority an absolute-form target named, kept for the check in the onRequest hook. */
const absoluteTargets = new WeakMap<IncomingMessage, { scheme: string; authority: string }>();

/**
 * fastify's `rewriteUrl`: an absolute-form target (RFC 9112 §3.2.2, what a client sends a proxy)
 * is served as its origin-form path, so that routing, redirects and every rule keyed on the path
 * see `/path` and never `http://host/path`. It must not throw here (no answer can be sent yet):
 * `assertTargetNamesHost` refuses the request once it has one.
 */
export function originForm(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return url;
  absoluteTargets.set(req, { scheme: m[1]!.toLowerCase(), authority: m[2]!.toLowerCase() });
  const rest = url.slice(m[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Refuses an absolute-form target that names another authority than the Host the request
 * carries, or a scheme other than http(s): this service is nobody's proxy, and a target's host
 * must not pick a realm, a cookie or a redirect that the Host did not.
 */
export function assertTargetNamesHost(req: FastifyRequest) {
  const target = absoluteTargets.get(req.raw);
  if (!target) return;
  const host = (req.headers.host ?? '').toLowerCase();
  if ((target.scheme !== 'http' && target.scheme !== 'https') || target.authority !== host)
    throw new ProblemError('invalid_host');
}

const paths = new WeakMap<FastifyRequest, string>();

/**
 * The path a request addresses, as the router reads it: origin-form (see originForm), without
 * its query, percent-escapes decoded as far as decodeURI goes (`/%75sers/me` is `/users/me`; an
 * escaped `/` stays escaped, as in routing). Every rule keyed on the path (API or page, the cache
 * policy, realms or not, tRPC's answer shape) reads this, never the raw text of req.url.
 */
export function pathOf(req: FastifyRequest): string {
  let path = paths.get(req);
  if (path !== undefined) return path;
  const raw = req.url.split(/[?#]/, 1)[0]!;
  try {
    path = decodeURI(raw);
  } catch {
    // Not decodable: fastify answers 404 for such a path, and no prefix rule matches it.
    path = raw;
  }
  paths.set(req, path);
  return path;
}
