import { isIP } from 'node:net';
import { DEFAULT_REALM_SLUG, findRealm } from '@accounts/api';
import type { Database, Realm } from '@accounts/db';
import { realmSlugField } from '@accounts/validators';

/**
 * The realm slug a Host addresses: the root domain itself or an IP address is the default
 * realm, one label under the root domain is that realm, anything else addresses no realm.
 */
export function realmSlugFromHost(hostname: string, rootDomain: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
  if (host === rootDomain || isIP(host) !== 0) return DEFAULT_REALM_SLUG;
  if (!host.endsWith(`.${rootDomain}`)) return null;
  const label = host.slice(0, -rootDomain.length - 1);
  return realmSlugField.safeParse(label).success ? label : null;
}

/**
 * Realm lookups by slug, remembered for a few seconds: every request needs its realm, and
 * realms change rarely. A realm created while the server runs is served within the TTL.
 */
export function realmLookup(db: Database, ttlMs = 5000): (slug: string) => Promise<Realm | null> {
  const cache = new Map<string, { realm: Realm | null; until: number }>();
  return async (slug) => {
    const hit = cache.get(slug);
    if (hit && hit.until > Date.now()) return hit.realm;
    const realm = await findRealm(db, slug);
    if (cache.size > 10_000) cache.clear(); // unknown hosts must not grow it without bound
    cache.set(slug, { realm, until: Date.now() + ttlMs });
    return realm;
  };
}
