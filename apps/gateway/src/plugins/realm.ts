import { ProblemError, type Database } from '@accounts/api';
import { setupPlugin } from './setup-plugin.js';
import { assertSameOrigin } from '../origin-check.js';
import { isProviderPath } from '../oidc/mount.js';
import { isValidHost, realmLookup, realmSlugFromHost } from '../realm-host.js';
import { assertTargetNamesHost, pathOf } from '../request-target.js';

/** Paths that serve no realm: health and the API's description. */
const UNREALMED = /^\/(healthz|readyz|openapi\.json)(\?|$)/;

export interface RealmOptions {
  db: Database;
  rootDomain: string;
  /** The service's name (SERVICE_NAME), which an unnamed default realm goes by. */
  serviceName: string;
  /** Origins besides the request's own that may post. */
  trustedOrigins: readonly string[];
}

function hostHeaderCount(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

/** /users/oauth/<provider>/callback, where an upstream provider answers. */
const UPSTREAM_CALLBACK = /^\/users\/oauth\/[^/]+\/callback$/;

/**
 * Every request's Host: one, well-formed, the one an absolute-form target names, and naming a
 * realm (req.realm), which is then the only origin (with the trusted ones) that may post.
 */
export default setupPlugin<RealmOptions>('realm', (app, { db, rootDomain, serviceName, trustedOrigins }) => {
  const findRealmCached = realmLookup(db, serviceName);
  app.addHook('onRequest', async (req) => {
    // Two Host headers are a malformed request (RFC 9112 §3.2), not one to serve by the first.
    if (hostHeaderCount(req.raw.rawHeaders) > 1) throw new ProblemError('invalid_body');
    // So is a Host that is not host[:port]; the host a trusted proxy forwards (req.host) too.
    // No Host at all (or an empty one) names no realm, which the realm check answers.
    if ((req.headers.host && !isValidHost(req.headers.host)) || (req.host && !isValidHost(req.host)))
      throw new ProblemError('invalid_host');
    assertTargetNamesHost(req);
    if (UNREALMED.test(pathOf(req))) return;
    const slug = realmSlugFromHost(req.hostname, rootDomain);
    const realm = slug ? await findRealmCached(slug) : null;
    if (!realm) throw new ProblemError('realm_not_found');
    req.realm = realm;
    // The provider's endpoints take other sites' POSTs by design (an app's back end, a single-page
    // app's token request, its logout form); they check the app instead. Our own consent form is
    // no such endpoint: it stays same-origin.
    if (isProviderPath(pathOf(req))) return;
    // An upstream provider's form_post answer (Apple's) is another site's POST by design; it only
    // keeps the answer for the browser's own GET, which the flow's binding then checks.
    if (UPSTREAM_CALLBACK.test(pathOf(req))) return;
    assertSameOrigin(req, trustedOrigins);
  });
});
