import * as oidc from 'openid-client';
import { importPKCS8, SignJWT } from 'jose';
import type { UpstreamProvider } from '@accounts/db';

// What each kind of upstream provider does differently, a strategy per kind in Kratos's way: where
// its endpoints are, how the client authenticates, and how its answer becomes a profile (who the
// person is there, and whether the provider vouches for the address). Everything else is the flow's.

export const PROVIDER_KINDS = ['oidc', 'google', 'github', 'microsoft', 'apple'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Who the person is at the provider: the identity is the issuer and the subject, never the email. */
export interface UpstreamProfile {
  issuer: string;
  subject: string;
  email: string | null;
  /** Only when the provider vouches for the address, by its own kind's rule. */
  emailVerified: boolean;
  name: string | null;
  /** The upstream's own method references (RFC 8176), when it gives them. */
  amr: string[];
}

/** A provider with its secret opened, as the flow uses it. */
export interface OpenedProvider {
  row: UpstreamProvider;
  /** The client secret; for Apple, the private key (PKCS #8 PEM) that signs it. */
  secret: string;
}

export interface KindStrategy {
  /** What an operator may leave out when adding one. */
  defaults: { issuer: string | null; name: string; scope: string };
  /** OpenID Connect (an ID token is asked for and validated), or OAuth 2 alone (GitHub). */
  idToken: boolean;
  /** Authorization parameters of its own (Apple answers by form_post when it shares the name). */
  authorization?: Record<string, string>;
  /** openid-client's configuration: discovered, or written from the kind's known endpoints. */
  configure(p: OpenedProvider, options: oidc.DiscoveryRequestOptions): Promise<oidc.Configuration>;
  /** The person, from the token response (and what else the kind reads: Apple's `user`, GitHub's API). */
  profile(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
    callback: { user?: string },
  ): Promise<UpstreamProfile>;
}

const isTrue = (v: unknown) => v === true || v === 'true' || v === 1 || v === '1';
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The ID token's claims, with userinfo's where the token leaves out the address. */
async function openIdClaims(
  config: oidc.Configuration,
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): Promise<Record<string, unknown>> {
  const claims = tokens.claims();
  if (!claims) throw new Error('no ID token');
  if (claims.email !== undefined || !config.serverMetadata().userinfo_endpoint) return claims;
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  // The token's own claims win: userinfo only fills in what it left out.
  return { ...info, ...claims };
}

const nameOf = (c: Record<string, unknown>) =>
  text(c.name) ?? (text([c.given_name, c.family_name].filter((v) => typeof v === 'string').join(' ')) || null);

const amrOf = (c: Record<string, unknown>) =>
  Array.isArray(c.amr) ? c.amr.filter((v): v is string => typeof v === 'string') : [];

const discover = (p: OpenedProvider, options: oidc.DiscoveryRequestOptions, auth?: oidc.ClientAuth) =>
  oidc.discovery(new URL(p.row.issuer), p.row.clientId, undefined, auth ?? oidc.ClientSecretPost(p.secret), options);

/** Any OpenID Connect provider: its discovery document, and `email_verified` as it says. */
const openIdConnect: KindStrategy = {
  defaults: { issuer: null, name: 'OpenID Connect', scope: 'openid email profile' },
  idToken: true,
  configure: (p, options) => discover(p, options),
  async profile(config, tokens) {
    const c = await openIdClaims(config, tokens);
    return {
      issuer: String(c.iss),
      subject: String(c.sub),
      email: text(c.email),
      emailVerified: isTrue(c.email_verified),
      name: nameOf(c),
      amr: amrOf(c),
    };
  },
};

/** Google: OpenID Connect, `email_verified` as it says. */
const google: KindStrategy = {
  ...openIdConnect,
  defaults: { issuer: 'https://accounts.google.com', name: 'Google', scope: 'openid email profile' },
};

/**
 * Microsoft Entra ID: the issuer is the tenant's (openid-client resolves `{tenantid}` from the
 * token), the subject its `oid` (stable across the tenant's apps) or else `sub`. An Entra address
 * is whatever the tenant's admin typed (nOAuth): verified only when `xms_edov` says the domain is.
 */
const microsoft: KindStrategy = {
  defaults: {
    issuer: 'https://login.microsoftonline.com/common/v2.0',
    name: 'Microsoft',
    scope: 'openid email profile',
  },
  idToken: true,
  configure: (p, options) => discover(p, options),
  async profile(config, tokens) {
    const c = await openIdClaims(config, tokens);
    return {
      issuer: String(c.iss),
      subject: String(text(c.oid) ?? c.sub),
      email: text(c.email),
      emailVerified: text(c.email) !== null && isTrue(c.xms_edov),
      name: nameOf(c),
      amr: amrOf(c),
    };
  },
};

/** How long a made Apple client secret lives; a configuration is rebuilt well before (upstream/client.ts). */
export const APPLE_SECRET_TTL_S = 24 * 3600;

/**
 * Apple: the client secret is an ES256 JWT signed with the key the operator gave (its team and key
 * ids), made here; the answer comes by form_post (a cross-site POST); the name comes once, on the
 * first authorization, as the `user` field beside the code.
 */
const apple: KindStrategy = {
  defaults: { issuer: 'https://appleid.apple.com', name: 'Apple', scope: 'openid email name' },
  idToken: true,
  authorization: { response_mode: 'form_post' },
  async configure(p, options) {
    const now = Math.floor(Date.now() / 1000);
    const secret = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: String(p.row.options.keyId ?? '') })
      .setIssuer(String(p.row.options.teamId ?? ''))
      .setSubject(p.row.clientId)
      .setAudience(p.row.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + APPLE_SECRET_TTL_S)
      .sign(await importPKCS8(p.secret, 'ES256'));
    return discover(p, options, oidc.ClientSecretPost(secret));
  },
  async profile(config, tokens, callback) {
    const c = await openIdClaims(config, tokens);
    let name: string | null = null;
    try {
      const user = callback.user ? (JSON.parse(callback.user) as { name?: Record<string, unknown> }) : null;
      name = text([user?.name?.firstName, user?.name?.lastName].filter((v) => typeof v === 'string').join(' '));
    } catch {
      name = null;
    }
    return {
      issuer: String(c.iss),
      subject: String(c.sub),
      email: text(c.email),
      emailVerified: isTrue(c.email_verified),
      name,
      amr: amrOf(c),
    };
  },
};

/** GitHub's API beside its issuer: api.github.com, or an Enterprise Server's /api/v3. */
const githubApi = (issuer: string) =>
  new URL(issuer).hostname === 'github.com' ? 'https://api.github.com' : `${issuer.replace(/\/$/, '')}/api/v3`;

/**
 * GitHub: OAuth 2, not OpenID Connect. The person is the numeric id /user gives; the address
 * counts as verified only when /user/emails marks it primary and verified.
 */
const github: KindStrategy = {
  defaults: { issuer: 'https://github.com', name: 'GitHub', scope: 'read:user user:email' },
  idToken: false,
  configure(p) {
    const base = p.row.issuer.replace(/\/$/, '');
    const config = new oidc.Configuration(
      {
        issuer: p.row.issuer,
        authorization_endpoint: `${base}/login/oauth/authorize`,
        token_endpoint: `${base}/login/oauth/access_token`,
      },
      p.row.clientId,
      p.secret,
    );
    return Promise.resolve(config);
  },
  async profile(config, tokens) {
    const api = githubApi(config.serverMetadata().issuer);
    const get = async <T>(path: string): Promise<T> => {
      const headers = new Headers({ accept: 'application/vnd.github+json', 'user-agent': 'accounts' });
      const res = await oidc.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${api}${path}`),
        'GET',
        undefined,
        headers,
      );
      if (!res.ok) throw new Error(`GitHub ${path}: ${res.status}`);
      return (await res.json()) as T;
    };
    const user = await get<{ id?: unknown; name?: unknown; login?: unknown }>('/user');
    if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error('GitHub /user: no id');
    const emails = await get<{ email?: unknown; primary?: unknown; verified?: unknown }[]>('/user/emails');
    const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true) : undefined;
    return {
      issuer: config.serverMetadata().issuer,
      subject: String(user.id),
      email: text(primary?.email),
      emailVerified: primary?.verified === true,
      name: text(user.name) ?? text(user.login),
      amr: [],
    };
  },
};

export const KINDS: Record<ProviderKind, KindStrategy> = { oidc: openIdConnect, google, github, microsoft, apple };

export const isProviderKind = (v: string): v is ProviderKind => (PROVIDER_KINDS as readonly string[]).includes(v);
