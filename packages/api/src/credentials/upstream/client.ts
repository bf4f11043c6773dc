import * as oidc from 'openid-client';
import { ProblemError } from '../../kernel/errors.js';
import { KINDS, type OpenedProvider, type ProviderKind, type UpstreamProfile } from './kinds.js';
import { issuerProblem } from './providers.js';

// The protocol with an upstream provider, through openid-client (panva's certified relying party):
// the authorization request (PKCE S256, state, nonce), and the callback (the RFC 9207 `iss`, the
// code exchanged, the ID token validated: signature, iss, aud, exp, nonce).

/** How long a provider's configuration (its discovery, its keys' cache) is kept before it is read again. */
const CONFIGURATION_TTL_MS = 3600_000;
/** An upstream that answers slower than this is down, for the person waiting. */
const TIMEOUT_S = 10;

const configurations = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

/** The provider's configuration, discovered once an hour per process (a failed discovery is tried again next time). */
export function configurationOf(p: OpenedProvider, allowPrivateOutbound: boolean): Promise<oidc.Configuration> {
  if (issuerProblem(p.row.issuer, allowPrivateOutbound))
    return Promise.reject(new ProblemError('upstream_unavailable'));
  const key = `${p.row.id}\n${p.row.clientSecret}`;
  const kept = configurations.get(key);
  if (kept && Date.now() - kept.at < CONFIGURATION_TTL_MS) return kept.config;
  const insecure = new URL(p.row.issuer).protocol === 'http:';
  const config = KINDS[p.row.kind as ProviderKind]
    .configure(p, { timeout: TIMEOUT_S, execute: insecure ? [oidc.allowInsecureRequests] : [] })
    .then((made) => {
      if (insecure) oidc.allowInsecureRequests(made);
      // The ID token's signature is checked against the provider's published keys too, not only
      // trusted for having come over TLS (which a plain-http loopback issuer lacks anyway).
      if (KINDS[p.row.kind as ProviderKind].idToken) oidc.enableNonRepudiationChecks(made);
      made.timeout = TIMEOUT_S;
      return made;
    });
  configurations.set(key, { at: Date.now(), config });
  config.catch(() => configurations.delete(key));
  return config.catch(() => {
    throw new ProblemError('upstream_unavailable');
  });
}

/** What an authorization request is sent with, and what its callback is checked against. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const newFlowSecrets = (): FlowSecrets => ({
  state: oidc.randomState(),
  nonce: oidc.randomNonce(),
  codeVerifier: oidc.randomPKCECodeVerifier(),
});

/** Where the person is sent to sign in at the provider. */
export async function authorizationUrl(
  config: oidc.Configuration,
  p: OpenedProvider,
  secrets: FlowSecrets,
  redirectUri: string,
): Promise<string> {
  const strategy = KINDS[p.row.kind as ProviderKind];
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: p.row.scope,
    state: secrets.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
    code_challenge_method: 'S256',
    ...strategy.authorization,
  };
  if (strategy.idToken) params.nonce = secrets.nonce;
  return oidc.buildAuthorizationUrl(config, params).href;
}

/**
 * The callback's answer checked and its code exchanged: the person at the provider, or why not
 * (null: any failure of the protocol; the flow counts it as a failed sign-in).
 */
export async function completeAuthorization(
  config: oidc.Configuration,
  p: OpenedProvider,
  secrets: FlowSecrets,
  callbackUrl: URL,
  extra: { user?: string },
): Promise<{ profile: UpstreamProfile } | { error: string }> {
  const strategy = KINDS[p.row.kind as ProviderKind];
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: secrets.codeVerifier,
      expectedState: secrets.state,
      expectedNonce: strategy.idToken ? secrets.nonce : undefined,
      idTokenExpected: strategy.idToken,
    });
    return { profile: await strategy.profile(config, tokens, extra) };
  } catch (err) {
    const code =
      err instanceof oidc.AuthorizationResponseError
        ? err.error
        : err instanceof oidc.ResponseBodyError
          ? err.error
          : 'token_invalid';
    return { error: code };
  }
}
