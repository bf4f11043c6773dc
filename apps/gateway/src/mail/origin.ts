import { DEFAULT_REALM_SLUG } from '@accounts/api';
import type { Config } from '../config.js';

/**
 * The origin of a realm's web app, which links in mails point to: configuration and the realm
 * only. With PUBLIC_URL (the default realm's public origin) a realm's origin is its slug in
 * front of that host; without it, PUBLIC_SCHEME on ROOT_DOMAIN at PUBLIC_PORT (PORT unless set).
 * Nothing of the request (Host, X-Forwarded-*, its port or scheme) is copied into a link: a
 * forged one could otherwise send someone's reset link elsewhere.
 */
export function realmOrigin(slug: string | undefined, config: Config): string {
  const sub = (host: string) => (!slug || slug === DEFAULT_REALM_SLUG ? host : `${slug}.${host}`);
  if (config.PUBLIC_URL) {
    const url = new URL(config.PUBLIC_URL);
    return `${url.protocol}//${sub(url.host)}`;
  }
  const scheme = config.PUBLIC_SCHEME;
  const port = config.PUBLIC_PORT ?? config.PORT;
  // PORT=0 (any free port) names no port a link could use; a scheme's default port is left out.
  const shown = port === 0 || port === (scheme === 'https' ? 443 : 80) ? '' : `:${port}`;
  return `${scheme}://${sub(config.ROOT_DOMAIN)}${shown}`;
}
