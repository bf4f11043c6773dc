import type {
  AppRouter,
  callerFor,
  Database,
  Hasher,
  ProcedureObserver,
  ShownRealm,
  RequestContext,
  Vault,
} from '@accounts/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './locale.js';
import type { Limiter } from './rate-limits.js';
import {
  deviceCredentialOf,
  pendingSignInOf,
  upstreamBrowserOf,
  sessionSink,
  sessionTokenOf,
  wantsTokenInBody,
} from './session-transport.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the realm hook for every route that serves a realm. */
    realm?: ShownRealm;
  }
}

/** What every request's procedures run against. */
export interface Services {
  db: Database;
  hasher: Hasher;
  vault: Vault;
  /** The router built from this deployment's account configuration, and its server-side caller. */
  router: AppRouter;
  createCaller: ReturnType<typeof callerFor>;
  limit: Limiter;
  /** The realm's origin for links in mails (see mail/origin.ts). */
  originOf?: (req: FastifyRequest) => string;
  /** Told of each procedure call (metrics, traces); none when both are off. */
  observer?: ProcedureObserver;
}

/** The tRPC context of one HTTP request, shared by the form routes and /trpc. */
export function contextFor(req: FastifyRequest, reply: FastifyReply, services: Services) {
  const cookies = sessionSink(req, reply, wantsTokenInBody(req));
  const ctx: RequestContext = {
    db: services.db,
    hasher: services.hasher,
    vault: services.vault,
    realm: req.realm!,
    locale: localeOf(req),
    clientIp: req.ip ?? null,
    requestId: req.id,
    actingAs: (userId) => void (req.accountId = userId),
    userAgent: req.headers['user-agent'] ?? null,
    sessionToken: sessionTokenOf(req),
    deviceCredential: deviceCredentialOf(req),
    pendingSignInToken: pendingSignInOf(req),
    upstreamBrowserToken: upstreamBrowserOf(req),
    cookies,
    rateLimit: (action, key) => services.limit(req, action, key),
    origin: services.originOf?.(req) ?? null,
    log: req.log,
    observer: services.observer,
  };
  return { ctx, cookies };
}
