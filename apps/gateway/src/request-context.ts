import type { AccountConfig, Context, Hasher } from '@accounts/api';
import type { Database, Realm } from '@accounts/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './locale.js';
import type { Limiter } from './rate-limits.js';
import { sessionSink, sessionTokenOf } from './session-transport.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the realm hook for every route that serves a realm. */
    realm?: Realm;
  }
}

/** What every request's procedures run against. */
export interface Services {
  db: Database;
  hasher: Hasher;
  accounts: AccountConfig;
  limit: Limiter;
}

/**
 * The tRPC context of one HTTP request, shared by the form routes and /trpc. Only the form
 * routes can hand a token over in the body; /trpc always uses the cookie.
 */
export function contextFor(req: FastifyRequest, reply: FastifyReply, services: Services, tokenInBody = false) {
  const session = sessionSink(req, reply, tokenInBody);
  const ctx: Context = {
    db: services.db,
    hasher: services.hasher,
    config: services.accounts,
    realm: req.realm!,
    locale: localeOf(req),
    clientIp: req.ip ?? null,
    sessionToken: sessionTokenOf(req),
    session,
    rateLimit: (action) => services.limit(req, action),
  };
  return { ctx, session };
}
