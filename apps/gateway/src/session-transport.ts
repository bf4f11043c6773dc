import cookie from '@fastify/cookie';
import { isSessionTokenShape, type SessionSink } from '@accounts/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isSecureRequest } from './secure-request.js';

// Host-only cookies (no Domain): a realm's session is never sent to a sibling realm.
// Over https, and always when COOKIE_SECURE or an https PUBLIC_URL says so (a TLS proxy in front
// may hide the scheme), the __Host- prefix makes browsers enforce Secure, Path=/ and no Domain.
const PLAIN = 'session';
const HOST_PREFIXED = '__Host-session';
// The known-device credential: long-lived, kept across sign-outs, grants nothing by itself.
const DEVICE_PLAIN = 'known_device';
const DEVICE_HOST_PREFIXED = '__Host-known_device';
// A sign-in waiting for its second step: Strict, and gone within minutes.
const PENDING_PLAIN = 'pending_sign_in';
const PENDING_HOST_PREFIXED = '__Host-pending_sign_in';

// A browser's binding to its sign-ins at upstream providers: Lax, so that the provider's redirect
// back (a cross-site top-level GET) carries it; it grants nothing by itself.
const UPSTREAM_PLAIN = 'upstream_flow';
const UPSTREAM_HOST_PREFIXED = '__Host-upstream_flow';

/** Programmatic clients ask for the token in the body with this header, and get no cookie. */
export const TOKEN_DELIVERY_HEADER = 'x-session-delivery';
/** Programs send their known-device credential back in this header (browsers use the cookie). */
export const KNOWN_DEVICE_HEADER = 'x-known-device';

const isHttps = isSecureRequest;
const cookieName = (req: FastifyRequest) => (isHttps(req) ? HOST_PREFIXED : PLAIN);
const deviceCookieName = (req: FastifyRequest) => (isHttps(req) ? DEVICE_HOST_PREFIXED : DEVICE_PLAIN);
const pendingCookieName = (req: FastifyRequest) => (isHttps(req) ? PENDING_HOST_PREFIXED : PENDING_PLAIN);

const upstreamCookieName = (req: FastifyRequest) => (isHttps(req) ? UPSTREAM_HOST_PREFIXED : UPSTREAM_PLAIN);

/** The browser's binding to its upstream sign-ins (credentials/upstream/flows.ts in the api). */
export const upstreamBrowserOf = (req: FastifyRequest): string | null => req.cookies[upstreamCookieName(req)] ?? null;

/** The pending sign-in a browser holds (programs send it as the `pending_token` field). */
export const pendingSignInOf = (req: FastifyRequest): string | null => req.cookies[pendingCookieName(req)] ?? null;

/** `Bearer <token>`; the scheme's name is case-insensitive (RFC 9110 §11.1), the token is not. */
const BEARER = /^Bearer +(\S+)$/i;
const isBearer = (auth: string | undefined) => /^Bearer /i.test(auth?.trim() ?? '');

/**
 * Tokens go in the body when the client asks for it, and for a bearer client (it has no cookie
 * jar, so a rotated token in a cookie would lose it its session).
 */
export function wantsTokenInBody(req: FastifyRequest): boolean {
  return req.headers[TOKEN_DELIVERY_HEADER] === 'token' || isBearer(req.headers.authorization);
}

/** The known-device credential: the header for programs, else the cookie. */
export function deviceCredentialOf(req: FastifyRequest): string | null {
  const header = req.headers[KNOWN_DEVICE_HEADER];
  if (typeof header === 'string') return header;
  return req.cookies[deviceCookieName(req)] ?? null;
}

/** The browser's session cookie alone (a sign-in to an app is a browser's, never a bearer's). */
export const sessionCookieOf = (req: FastifyRequest): string | null => req.cookies[cookieName(req)] ?? null;

/** Clearing the session cookie, as a Set-Cookie value for a response fastify does not write (the provider's). */
export const clearedSessionCookie = (req: FastifyRequest): string =>
  cookie.serialize(cookieName(req), '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isHttps(req),
    expires: new Date(0),
  });

/** The caller's session token: a bearer header for programs, else the session cookie. */
export function sessionTokenOf(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (auth) {
    const m = BEARER.exec(auth.trim());
    return m && isSessionTokenShape(m[1]!) ? m[1]! : null;
  }
  return req.cookies[cookieName(req)] ?? null;
}

/**
 * Where a procedure's new session and known-device credential go: HttpOnly cookies, or, for a
 * token client, the response body (the procedures add them to their result).
 */
export function sessionSink(req: FastifyRequest, reply: FastifyReply, tokenInBody: boolean): SessionSink {
  return {
    tokensInBody: tokenInBody,
    issue(session) {
      reply.header('cache-control', 'no-store');
      if (tokenInBody) return;
      reply.setCookie(cookieName(req), session.token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: isHttps(req),
        expires: session.expiresAt,
      });
    },
    clear() {
      reply.header('cache-control', 'no-store');
      // Not "cookies": the known-device cookie must outlive sign-outs to keep its owner unlocked.
      reply.header('clear-site-data', '"cache", "storage"');
      reply.clearCookie(cookieName(req), { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(req) });
    },
    rememberDevice(credential, expiresAt) {
      if (tokenInBody) return;
      // Strict: only the service's own pages ever need to send it.
      reply.setCookie(deviceCookieName(req), credential, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        secure: isHttps(req),
        expires: expiresAt,
      });
    },
    pendingSignIn(token, expiresAt) {
      reply.header('cache-control', 'no-store');
      const options = { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: isHttps(req) };
      if (token === null) {
        if (req.cookies[pendingCookieName(req)] !== undefined) reply.clearCookie(pendingCookieName(req), options);
        return;
      }
      if (!tokenInBody) reply.setCookie(pendingCookieName(req), token, { ...options, expires: expiresAt });
    },
    upstreamBrowser(token, expiresAt) {
      reply.header('cache-control', 'no-store');
      reply.setCookie(upstreamCookieName(req), token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: isHttps(req),
        expires: expiresAt,
      });
    },
  };
}
