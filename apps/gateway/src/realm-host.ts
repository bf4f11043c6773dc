import { isIP } from 'node:net';
import { DEFAULT_REALM_SLUG, findRealm, shownRealm, type Database, type ShownRealm } from '@accounts/api';
import { realmSlugField } from '@accounts/validators';

/** RFC 3986 reg-name: unreserved, percent-encoded or sub-delims characters (an IPv4 address is one too). */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/**
 * Whether a Host value (or a trusted proxy's X-Forwarded-Host) is `host[:port]` (RFC 9112 §3.2):
 * a reg-name, an IPv4 address or a bracketed IPv6 address, and a port of 1 to 65535 if any.
 */
export function isValidHost(value: string): boolean {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return false;
  const [, host = '', port] = m;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return host.startsWith('[') ? isIP(host.slice(1, -1)) === 6 : REG_NAME.test(host);
}

/**
 * The realm slug a Host addresses: the root domain itself or an IP address is the default
 * realm, one label under the root domain is that realm, anything else addresses no realm.
 */
export function realmSlugFromHost(hostname: string, rootDomain: string): string | null {
  const host = hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  if (host === rootDomain || isIP(host) !== 0) return DEFAULT_REALM_SLUG;
  if (!host.endsWith(`.${rootDomain}`)) return null;
  const label = host.slice(0, -rootDomain.length - 1);
  return realmSlugField.safeParse(label).success ? label : null;
}

/**
 * Realm lookups by slug, remembered for a few seconds: every request needs its realm, and
 * realms change rarely. A realm created or renamed while the server runs is served within the
 * TTL. Each comes with the name people see (the service's, for an unnamed default realm).
 */
export function realmLookup(
  db: Database,
  serviceName: string,
  ttlMs = 5000,
): (slug: string) => Promise<ShownRealm | null> {
  const cache = new Map<string, { realm: ShownRealm | null; until: number }>();
  return async (slug) => {
    const hit = cache.get(slug);
    if (hit && hit.until > Date.now()) return hit.realm;
    const found = await findRealm(db, slug);
    const realm = found && shownRealm(found, serviceName);
    if (cache.size > 10_000) cache.clear(); // unknown hosts must not grow it without bound
    cache.set(slug, { realm, until: Date.now() + ttlMs });
    return realm;
  };
}
