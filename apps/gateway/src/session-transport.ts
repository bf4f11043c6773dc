import type { IssuedSession, SessionSink } from '@accounts/api';
import type { FastifyReply, FastifyRequest } from 'fastify';

// Host-only cookies (no Domain): a realm's session is never sent to a sibling realm.
// Over https the __Host- prefix makes browsers enforce Secure, Path=/ and no Domain.
const PLAIN = 'session';
const HOST_PREFIXED = '__Host-session';

/** Programmatic clients of the form routes ask for the token in the body with this header, and get no cookie. */
export const TOKEN_DELIVERY_HEADER = 'x-session-delivery';

const isHttps = (req: FastifyRequest) => req.protocol === 'https';
const cookieName = (req: FastifyRequest) => (isHttps(req) ? HOST_PREFIXED : PLAIN);

export function wantsTokenInBody(req: FastifyRequest): boolean {
  return req.headers[TOKEN_DELIVERY_HEADER] === 'token';
}

/** The caller's session token: a bearer header for programs, else the session cookie. */
export function sessionTokenOf(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (auth) {
    const m = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(auth.trim());
    return m ? m[1]! : null;
  }
  return req.cookies[cookieName(req)] ?? null;
}

/**
 * Where a procedure's new session goes: an HttpOnly cookie, or, for a client that asked,
 * the response body (kept in `delivered` for the form routes to add).
 */
export function sessionSink(req: FastifyRequest, reply: FastifyReply, tokenInBody: boolean): SessionSink & { delivered?: IssuedSession } {
  const sink: SessionSink & { delivered?: IssuedSession } = {
    issue(session) {
      reply.header('cache-control', 'no-store');
      if (tokenInBody) {
        sink.delivered = session;
        return;
      }
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
      reply.clearCookie(cookieName(req), { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(req) });
    },
  };
  return sink;
}
