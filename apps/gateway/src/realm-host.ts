import { isIP } from 'node:net';
import { DEFAULT_REALM_SLUG } from '@accounts/api';
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
