import { DEFAULT_REALM_SLUG } from '@accounts/api';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * The origin of a realm's web app, which links in mails point to. With PUBLIC_URL (the default
 * realm's public origin, for deployments behind a proxy) a realm's origin is its slug in front
 * of that host; without it, the request's scheme and port on ROOT_DOMAIN. The request's Host is
 * never copied into a link: a forged Host could otherwise send someone's reset link elsewhere.
 */
export function realmOrigin(req: FastifyRequest, config: Config): string {
  const slug = req.realm?.slug ?? DEFAULT_REALM_SLUG;
  const sub = (host: string) => (slug === DEFAULT_REALM_SLUG ? host : `${slug}.${host}`);
  if (config.PUBLIC_URL) {
    const url = new URL(config.PUBLIC_URL);
    return `${url.protocol}//${sub(url.host)}`;
  }
  const scheme = req.protocol === 'https' ? 'https' : 'http';
  const port = req.port && !((scheme === 'http' && req.port === 80) || (scheme === 'https' && req.port === 443)) ? `:${req.port}` : '';
  return `${scheme}://${sub(config.ROOT_DOMAIN)}${port}`;
}
