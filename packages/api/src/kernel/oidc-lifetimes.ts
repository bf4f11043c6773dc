// How long what the OpenID Connect provider issues lives, in seconds: the gateway's provider
// configuration and the retention purge read them here, and docs/oidc.md says them.

export const OIDC_LIFETIMES = {
  /** An authorization code: exchanged at once by the app's back end. */
  authorizationCode: 60,
  /** An access token (opaque): short, an app refreshes it. */
  accessToken: 10 * 60,
  /** An ID token. Also how long a retired signing key stays published after its retirement. */
  idToken: 60 * 60,
  /** A refresh token: a new one each use (rotation), each living this long from its issue. */
  refreshToken: 14 * 24 * 3600,
  /**
   * How long a rotated refresh token presented again gets the successor it already had (a lost
   * response, or two refreshes at once, is not a theft); after that it revokes the whole grant.
   */
  refreshGrace: 10,
  /** A consent given to an app (the provider's Grant), renewed by each sign-in to it. */
  grant: 365 * 24 * 3600,
  /** A sign-in to an app waiting for the person (the sign-in page, the consent page). */
  interaction: 60 * 60,
} as const;

/** The provider's clock tolerance, added to what a retired key must still verify. */
export const OIDC_CLOCK_TOLERANCE_SECONDS = 15;

/** How long after its retirement a signing key is still published: every ID token it signed has expired by then. */
export const RETIRED_KEY_KEPT_MS = (OIDC_LIFETIMES.idToken + OIDC_CLOCK_TOLERANCE_SECONDS) * 1000;
