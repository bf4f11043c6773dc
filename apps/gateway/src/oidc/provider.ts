import type { IncomingMessage } from 'node:http';
import {
  ACR_MULTI_FACTOR,
  ACR_SINGLE_FACTOR,
  outageProblem,
  ProblemError,
  toProblem,
  accountClaims,
  artifactStore,
  bindProviderSession,
  clientSecretMatches,
  enqueueLogout,
  inRotationScope,
  takeSuccessorId,
  clientUriProblem,
  findAccountBySubject,
  latestGrantId,
  OIDC_CLOCK_TOLERANCE_SECONDS,
  OIDC_LIFETIMES,
  OIDC_SCOPE_CLAIMS,
  realmSigningKeys,
  type Database,
  type Realm,
  type SessionSignIn,
  type Vault,
} from '@accounts/api';
import type { FastifyBaseLogger } from 'fastify';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.js';
import { localeOfHeader } from '../locale.js';
import { realmOrigin } from '../mail/origin.js';
import { renderProviderError } from './error-page.js';
import { logoutSource, postLogoutSuccessSource } from './logout-page.js';

// One OpenID Connect provider (panva's oidc-provider) per realm, its issuer the realm's public
// origin from configuration, never a request's Host. Only what this service needs is on: the
// code flow with PKCE (S256) for every app, exact redirect URIs, no registration, userinfo,
// revocation and introspection; sign-in and consent happen on our own pages (interactions.ts).

/** Where the provider's endpoints live (discovery is at the issuer's /.well-known/ addresses). */
export const OIDC_ROUTES = {
  authorization: '/oauth2/auth',
  token: '/oauth2/token',
  jwks: '/oauth2/jwks',
  userinfo: '/oauth2/userinfo',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
  end_session: '/oauth2/logout',
  // Off, but kept under /oauth2/ too should they ever be turned on.
  registration: '/oauth2/register',
  pushed_authorization_request: '/oauth2/par',
  code_verification: '/oauth2/device',
  device_authorization: '/oauth2/device/auth',
  backchannel_authentication: '/oauth2/backchannel',
  challenge: '/oauth2/challenge',
  credential: '/oauth2/credential',
} as const;

/** Our own pages of a sign-in to an app (interactions.ts): sign-in, then consent. */
export const interactionPath = (uid: string) => `/oauth2/interaction/${uid}`;

/** The property of a client's metadata that marks the service's own apps (they skip consent). */
export const FIRST_PARTY = 'first_party';

export interface ProviderDeps {
  db: Database;
  vault: Vault;
  config: Config;
  /** The live session of ours a request presents (its session cookie), as a sign-in; null when none. */
  signInOf(req: IncomingMessage): Promise<SessionSignIn | null>;
  /** Signs the browser of a provider request out here (RP-initiated logout): the session ends, its cookie is cleared. */
  signOutHere(ctx: KoaContextWithOIDC): Promise<void>;
  log: FastifyBaseLogger;
}

/** What delivering one back-channel logout came to: sent, or nothing to send (no such app, or no logout URI). */
export type LogoutDelivery = 'sent' | 'none';

export interface RealmProvider {
  provider: Provider;
  /** The signing keys it was built with (kids, current first): rotation elsewhere builds it again. */
  keysVersion: string;
  /** Signs and posts a logout token to the app's back-channel logout URI; throws when the app does not take it. */
  sendLogout(clientId: string, subject: string, sid: string | null): Promise<LogoutDelivery>;
}

/**
 * The login prompt also asks when the provider's session is not the session here that the browser
 * holds now: signed out, another account, or signed in again since (a new session here). Its
 * sign-in time is the provider session's login time, so the two stay one.
 */
function sessionHereCheck(signInOf: ProviderDeps['signInOf']) {
  const { Check } = interactionPolicy;
  return new Check('session_here', 'the session here ended or changed', 'login_required', async (ctx) => {
    const { session } = ctx.oidc;
    if (!session?.accountId) return Check.NO_NEED_TO_PROMPT;
    const here = await signInOf(ctx.req);
    if (!here || here.accountId !== session.accountId || here.ts !== session.loginTs) return Check.REQUEST_PROMPT;
    return Check.NO_NEED_TO_PROMPT;
  });
}

/** Every address a client registers, checked again when the provider loads it. */
function checkClientUris(_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) {
  if (key !== FIRST_PARTY) return;
  const uris = [
    ...((metadata.redirect_uris as string[] | undefined) ?? []),
    ...((metadata.post_logout_redirect_uris as string[] | undefined) ?? []),
    ...(typeof metadata.backchannel_logout_uri === 'string' ? [metadata.backchannel_logout_uri] : []),
  ];
  for (const uri of uris) {
    const problem = clientUriProblem(uri);
    if (problem) throw new errors.InvalidClientMetadata(`${uri} ${problem}`);
  }
}

export async function buildRealmProvider(realm: Realm, deps: ProviderDeps): Promise<RealmProvider> {
  const { db, vault, config } = deps;
  const keys = await realmSigningKeys(db, vault, realm.id);
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(sessionHereCheck((req) => deps.signInOf(req)));

  /**
   * The consent an account gave the app, remembered across sessions (the newest live Grant); a
   * first-party app's is made (or extended) here, so it is never asked for.
   */
  const loadExistingGrant: Configuration['loadExistingGrant'] = async (ctx) => {
    const { client, session, provider } = ctx.oidc;
    const accountId = session?.accountId;
    if (!client || !session || !accountId) return undefined;
    const grantId =
      ctx.oidc.result?.consent?.grantId ??
      session.grantIdFor(client.clientId) ??
      (await latestGrantId(db, realm.id, accountId, client.clientId));
    let grant = grantId ? await provider.Grant.find(grantId) : undefined;
    // A grant of another account or app (an earlier sign-in in this browser) is none of this one's.
    if (grant && (grant.accountId !== accountId || grant.clientId !== client.clientId)) grant = undefined;
    if (client[FIRST_PARTY] !== true) return grant;
    grant ??= new provider.Grant({ accountId, clientId: client.clientId });
    const scope = [...ctx.oidc.requestParamOIDCScopes].join(' ');
    if (scope) grant.addOIDCScope(scope);
    const claims = [...ctx.oidc.requestParamClaims];
    if (claims.length) grant.addOIDCClaims(claims);
    await grant.save();
    return grant;
  };

  const configuration: Configuration = {
    adapter: artifactStore(db, realm.id, {
      alreadyConsumed: () => new errors.InvalidGrant('grant request is invalid'),
      vault,
    }),
    clients: [],
    async findAccount(_ctx, sub) {
      const user = await findAccountBySubject(db, realm.id, sub);
      if (!user) return undefined;
      return { accountId: sub, claims: () => accountClaims(user) };
    },
    claims: {
      ...Object.fromEntries(Object.entries(OIDC_SCOPE_CLAIMS).map(([scope, names]) => [scope, [...names]])),
      // How and when the person signed in, in every ID token (the library adds them only when asked).
      openid: [...OIDC_SCOPE_CLAIMS.openid, 'acr', 'amr', 'auth_time'],
      iss: null,
      sid: null,
    },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    responseTypes: ['code'],
    // Every app, confidential or not, sends a challenge (S256 only: the library knows no other).
    pkce: { required: () => true },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    acrValues: [ACR_SINGLE_FACTOR, ACR_MULTI_FACTOR],
    allowOmittingSingleRegisteredRedirectUri: false,
    clockTolerance: OIDC_CLOCK_TOLERANCE_SECONDS,
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    extraClientMetadata: { properties: [FIRST_PARTY], validator: checkClientUris },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
      revocation: {
        enabled: true,
        // An app revokes its own tokens; another app's token is refused (a public app's silently, RFC 7009 §2.1).
        allowedPolicy: (_ctx, client, token) => {
          if (token.clientId === client.clientId) return Promise.resolve(true);
          if (client.clientAuthMethod === 'none') return Promise.resolve(false);
          return Promise.reject(new errors.InvalidRequest('client is not authorized to revoke the presented token'));
        },
      },
      introspection: {
        enabled: true,
        // Confidential apps only: a public one learns nothing (RFC 7662 §2.1 lets the server choose).
        allowedPolicy: (_ctx, client) => Promise.resolve(client.clientAuthMethod !== 'none'),
      },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      backchannelLogout: { enabled: true },
    },
    // The provider refuses loopback and private addresses at connect (its own SSRF guard);
    // ALLOW_PRIVATE_OUTBOUND lifts that for tests and private networks.
    fetch: (url, options) =>
      globalThis.fetch(url, config.ALLOW_PRIVATE_OUTBOUND ? { ...options, dispatcher: undefined } : options),
    routes: OIDC_ROUTES,
    interactions: { policy, url: (_ctx, interaction) => interactionPath(interaction.uid) },
    jwks: { keys },
    ttl: {
      AccessToken: OIDC_LIFETIMES.accessToken,
      AuthorizationCode: OIDC_LIFETIMES.authorizationCode,
      IdToken: OIDC_LIFETIMES.idToken,
      RefreshToken: OIDC_LIFETIMES.refreshToken,
      Grant: OIDC_LIFETIMES.grant,
      Interaction: OIDC_LIFETIMES.interaction,
      Session: config.SESSION_TTL_HOURS * 3600,
    },
    rotateRefreshToken: true,
    loadExistingGrant,
    cookies: {
      // Signed with keys of their own derived from SECRET_KEY (and its previous keys, to verify).
      keys: vault.keysFor('oidc-cookies'),
      names: { session: 'oidc_session', interaction: 'oidc_interaction', resume: 'oidc_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    renderError: renderProviderError,
  };

  /**
   * After a sign-in to an app (the authorization endpoint, or its resume after our pages): the
   * provider session is bound to the session here it came from, so it ends with it. After the
   * person confirmed a sign-out from an app (RP-initiated logout): the session here ends too.
   */
  const afterRoute = async (ctx: KoaContextWithOIDC) => {
    const route = (ctx.oidc as KoaContextWithOIDC['oidc'] | undefined)?.route;
    if (route === 'authorization' || route === 'resume') {
      const session = ctx.oidc.session;
      if (!session?.accountId || ctx.status >= 400) return;
      const here = await deps.signInOf(ctx.req);
      if (here?.accountId === session.accountId)
        await bindProviderSession(db, realm.id, session.uid, session.accountId, here.sessionId);
    } else if (route === 'end_session_confirm' && ctx.oidc.params?.logout && ctx.status === 303) {
      await deps.signOutHere(ctx);
    }
  };

  const provider = new Provider(realmOrigin(realm.slug, config), configuration);
  // The gateway hands the provider its own view of the request (the configured origin, the
  // client address fastify trusted under TRUST_PROXY) in X-Forwarded-* headers it sets itself
  // (mount.ts): what a client sends there never reaches the provider.
  provider.proxy = true;
  // The provider holds the digest as the client's secret; a presented secret is compared with it.
  provider.Client.prototype.compareClientSecret = function compareDigest(this: { clientSecret?: string }, actual) {
    return clientSecretMatches(actual, this.clientSecret);
  };
  // A refresh token made in a rotation takes the id the storage chose for the successor (artifacts.ts).
  // (Methods the library's types do not declare: generateTokenId on every model, backchannelLogout on Client.)
  const refreshProto = provider.RefreshToken.prototype as unknown as { generateTokenId: (this: unknown) => string };
  const randomId = refreshProto.generateTokenId;
  refreshProto.generateTokenId = function successorOrRandom() {
    return takeSuccessorId() ?? randomId.call(this);
  };
  // Every back-channel logout goes through the outbox, the provider's own (RP-initiated logout)
  // like those of sessions ending here: the sender delivers them (logout-sender.ts).
  type BackchannelLogout = (this: { clientId: string }, sub: string, sid?: string) => Promise<void>;
  const clientProto = provider.Client.prototype as unknown as { backchannelLogout: BackchannelLogout };
  const sendLogoutToken = clientProto.backchannelLogout;
  clientProto.backchannelLogout = function queued(sub, sid) {
    return enqueueLogout(db, realm.id, this.clientId, sub, sid ?? null);
  };
  const sendLogout = async (clientId: string, subject: string, sid: string | null): Promise<LogoutDelivery> => {
    const client = await provider.Client.find(clientId);
    if (!client?.backchannelLogoutUri) return 'none';
    await sendLogoutToken.call(client, subject, sid ?? undefined);
    return 'sent';
  };
  // The requests that failed because the database could not answer (the server_error event says so).
  const outages = new WeakSet<object>();
  provider.use(async (ctx, next) => {
    if (ctx.path === OIDC_ROUTES.token) await inRotationScope(next);
    else await next();
    try {
      await afterRoute(ctx as KoaContextWithOIDC);
    } catch (err) {
      // The answer stands; what failed is logged (an unbound provider session still ends when it expires).
      deps.log.warn(
        { err: err instanceof Error ? err.message : String(err), realm: realm.slug },
        'oidc: after-route step failed',
      );
    }
    // An outage is no fault of the request: 503 temporarily_unavailable, to try again (not a 500).
    if (ctx.status === 500 && outages.has(ctx)) {
      ctx.status = 503;
      ctx.set('retry-after', '1');
      ctx.type = 'application/json';
      ctx.body = { error: 'temporarily_unavailable', error_description: 'the service is not ready; try again shortly' };
      return;
    }
    // A token of an account that may no longer sign in (disabled, deleted, unconfirmed where the
    // realm requires it) is no longer active, as userinfo and refresh already say.
    const body = ctx.body as { active?: boolean; sub?: unknown } | undefined;
    if (ctx.path === OIDC_ROUTES.introspection && body?.active === true && typeof body.sub === 'string') {
      if (!(await findAccountBySubject(db, realm.id, body.sub))) ctx.body = { active: false };
      return;
    }
    // An address under /oauth2/ that names no endpoint (or a method an endpoint does not take): our 404.
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const locale = localeOfHeader(ctx.get('accept-language') || undefined);
    ctx.status = 404;
    ctx.type = 'application/problem+json';
    ctx.set('content-language', locale);
    ctx.body = toProblem(new ProblemError('not_found'), locale);
  });
  // Every ID token names its session here (sid), so an app can match a logout to the session it ends.
  provider.Client.prototype.includeSid = () => true;
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
    if (outageProblem(err)) {
      outages.add(ctx);
      deps.log.warn(
        { err: err.message, realm: realm.slug, route: ctx.oidc?.route },
        'oidc provider: database unavailable',
      );
      return;
    }
    deps.log.error({ err: err.message, realm: realm.slug, route: ctx.oidc?.route }, 'oidc provider failed');
  });
  return { provider, keysVersion: keys.map((k) => k.kid).join(' '), sendLogout };
}
