import { initTRPC } from '@trpc/server';
import { isUnavailable, type Database, type Realm, type Session, type User } from '@accounts/db';
import type { Locale } from '@accounts/validators';
import type { z } from 'zod';
import type { AccountConfig } from './config.js';
import { ProblemError, toProblem } from './errors.js';
import type { Hasher } from './password-hashing.js';
import { findSession, type IssuedSession } from './sessions.js';

/** How a procedure hands a session to the transport (a cookie, or a body for token clients). */
export interface SessionSink {
  issue(session: IssuedSession): void;
  clear(): void;
}

export interface Context {
  db: Database;
  hasher: Hasher;
  config: AccountConfig;
  /** The realm the request is addressed to (from its host). */
  realm: Realm;
  locale: Locale;
  clientIp: string | null;
  /** The caller's session token, from a cookie or a bearer header. */
  sessionToken: string | null;
  session: SessionSink;
  /** Counts a call against the client's limit for an action; returns Retry-After seconds when over it. */
  rateLimit?: (action: RateLimitedAction) => Promise<number | null>;
}

export type RateLimitedAction = 'register' | 'signIn' | 'changePassword';

const t = initTRPC.context<Context>().create({
  // Stack traces and internal messages never leave the process, whatever NODE_ENV says.
  isDev: false,
  errorFormatter({ shape, error, ctx }) {
    const problem = toProblem(error, ctx?.locale ?? 'en');
    return { ...shape, message: problem.title, data: { code: shape.data.code, httpStatus: problem.status, problem } };
  },
});

/** A database that cannot be reached is "not ready" (503), never an internal error. */
const mapOutages = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && !(result.error instanceof ProblemError) && isUnavailable(result.error.cause ?? result.error)) {
    throw new ProblemError('not_ready', { retryAfter: 5 });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapOutages);

/** Per-client limit, decided before validation and hashing so refusals stay cheap. */
export const limitedProcedure = (action: RateLimitedAction) =>
  publicProcedure.use(async ({ ctx, next }) => {
    const retryAfter = ctx.rateLimit ? await ctx.rateLimit(action) : null;
    if (retryAfter !== null) throw new ProblemError('rate_limited', { retryAfter });
    return next();
  });

/** Resolves the caller's session and user, or refuses with 401. */
export const authenticate = t.middleware(async ({ ctx, next }) => {
  const found = ctx.sessionToken ? await findSession(ctx.db, ctx.sessionToken, ctx.realm.id, ctx.config) : null;
  if (!found) throw new ProblemError('unauthenticated');
  return next({ ctx: { auth: found as { session: Session; user: User } } });
});

export const authedProcedure = publicProcedure.use(authenticate);

/**
 * Types an input for the client and leaves checking to parseInput(), which needs the
 * request's policy and realm and reports every field error at once.
 */
export const typed =
  <T>() =>
  (value: unknown) =>
    (value ?? {}) as T;

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ProblemError('validation_failed', { zod: result.error });
  return result.data;
}
