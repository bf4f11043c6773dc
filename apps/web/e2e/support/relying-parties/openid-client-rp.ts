import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { appAddresses, type RelyingParty, type RelyingPartyState } from './contract';

// An app's back end written with openid-client 6 (Node), the way docs/oidc.md tells an app to:
// the code flow with PKCE S256, state and nonce kept server-side, the ID token checked by the
// library (signature from the JWKS, iss, aud, exp, nonce), userinfo, a refresh, and a back-channel
// logout receiver that checks the logout token's signature and claims with jose.

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

export async function startOpenidClientRp(options: {
  port: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
}): Promise<RelyingParty> {
  const { origin, redirectUri } = appAddresses('script', options.port);
  const config = await client.discovery(new URL(options.issuer), options.clientId, options.clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const server = config.serverMetadata();
  const jwks = createRemoteJWKSet(new URL(server.jwks_uri!));
  const pending = new Map<string, { verifier: string; nonce: string }>();
  let tokens: client.TokenEndpointResponse | undefined;
  const state: RelyingPartyState = { signedIn: null, refreshed: null, logouts: [], refused: [] };

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const answer = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    (async () => {
      if (url.pathname === '/login') {
        const verifier = client.randomPKCECodeVerifier();
        const nonce = client.randomNonce();
        const stateValue = client.randomState();
        pending.set(stateValue, { verifier, nonce });
        const to = client.buildAuthorizationUrl(config, {
          redirect_uri: redirectUri,
          scope: 'openid profile email offline_access',
          prompt: 'consent',
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state: stateValue,
          nonce,
        });
        res.writeHead(302, { location: to.href }).end();
      } else if (url.pathname === '/callback') {
        const started = pending.get(url.searchParams.get('state') ?? '');
        if (!started) return answer(400, { error: 'unknown state' });
        const got = await client.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: started.verifier,
          expectedState: url.searchParams.get('state')!,
          expectedNonce: started.nonce,
          idTokenExpected: true,
        });
        tokens = got;
        const claims = got.claims()!;
        const userinfo = await client.fetchUserInfo(config, got.access_token, claims.sub);
        state.signedIn = { idToken: claims, userinfo, refreshToken: Boolean(got.refresh_token) };
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Signed in to the Node app</h1>`);
      } else if (url.pathname === '/refresh' && req.method === 'POST') {
        if (!tokens?.refresh_token) return answer(409, { error: 'no refresh token' });
        const before = tokens;
        const next = await client.refreshTokenGrant(config, before.refresh_token!);
        tokens = next;
        const userinfo = await client.fetchUserInfo(config, next.access_token, state.signedIn!.idToken.sub as string);
        state.refreshed = {
          rotated: Boolean(next.refresh_token) && next.refresh_token !== before.refresh_token,
          newAccessToken: next.access_token !== before.access_token,
          sub: userinfo.sub,
        };
        answer(200, state.refreshed);
      } else if (url.pathname === '/backchannel' && req.method === 'POST') {
        const logoutToken = new URLSearchParams(await body(req)).get('logout_token') ?? '';
        try {
          const { payload } = await jwtVerify(logoutToken, jwks, {
            issuer: options.issuer,
            audience: options.clientId,
            typ: 'logout+jwt',
            maxTokenAge: '2 minutes',
          });
          const events = payload.events as Record<string, unknown> | undefined;
          if (!events || typeof events[BACKCHANNEL_EVENT] !== 'object' || 'nonce' in payload)
            throw new Error('not a logout token');
          state.logouts.push({ sid: payload.sid as string, sub: payload.sub as string });
          res.writeHead(200).end();
        } catch (error) {
          state.refused.push(String(error));
          answer(400, { error: 'invalid_request' });
        }
      } else if (url.pathname === '/state') {
        answer(200, state);
      } else {
        answer(404, { error: 'not found' });
      }
    })().catch((error: unknown) => answer(500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => http.listen(options.port, '127.0.0.1', resolve));
  return {
    name: 'openid-client',
    origin,
    loginUrl: `${origin}/login`,
    port: options.port,
    log: () => '',
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
