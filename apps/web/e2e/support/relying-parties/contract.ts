// What the test asks of every independent app it signs in to (openid-client in Node, Authlib in
// Python, Apache's mod_auth_openidc): its addresses, known before the provider starts (the app is
// registered with them), and a way to stop it.

export interface RelyingParty {
  name: string;
  origin: string;
  /** Where a browser goes to start signing in to the app. */
  loginUrl: string;
  port: number;
  /** Everything the app wrote (its own log), for a failure's message. */
  log(): string;
  close(): Promise<void>;
}

/** The addresses an app on 127.0.0.1:<port> registers: Apache's module keeps both under one path. */
export function appAddresses(kind: 'script' | 'apache', port: number) {
  const origin = `http://127.0.0.1:${port}`;
  return kind === 'apache'
    ? {
        origin,
        redirectUri: `${origin}/protected/redirect_uri`,
        backchannelLogoutUri: `${origin}/protected/redirect_uri?logout=backchannel`,
      }
    : { origin, redirectUri: `${origin}/callback`, backchannelLogoutUri: `${origin}/backchannel` };
}

/** What the Node and Python apps report at GET /state (the same JSON from both). */
export interface RelyingPartyState {
  signedIn: { idToken: Record<string, unknown>; userinfo: Record<string, unknown>; refreshToken: boolean } | null;
  refreshed: { rotated: boolean; newAccessToken: boolean; sub: unknown } | null;
  logouts: { sid: string; sub: string }[];
  /** Logout tokens the app refused, with why. */
  refused: string[];
}
