import { getTRPCErrorShape, initTRPC, type TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { Database, Realm, Session, User } from '@accounts/db';
import type { Locale } from '@accounts/validators';
import type { AccountConfig } from './kernel/config.js';
import { outageProblem, ProblemError, rateLimited, toProblem, trpcCodeOf } from './kernel/errors.js';
import type { ProcedureObserver } from './kernel/observers.js';
import type { Hasher } from './credentials/password-hashing.js';
import type { Vault } from './kernel/vault.js';
import { findSession, type IssuedSession } from './records/sessions.js';

/**
 * Where a procedure puts the client's credentials (a new session, its end, the known-device
 * credential): HttpOnly cookies, or the response body for a program that asked for its tokens.
 */
export interface SessionSink {
  /** The client takes its tokens in the response body (a program), not in cookies. */
  tokensInBody?: boolean;
  issue(session: IssuedSession): void;
  clear(): void;
  /** Hands the client its known-device credential (the whole value it should send back). */
  rememberDevice(credential: string, expiresAt: Date): void;
  /** Hands a browser its pending sign-in (null: forget it). A program gets it in the problem's body instead. */
  pendingSignIn(token: string | null, expiresAt?: Date): void;
}

/** What the transport supplies for one request. */
export interface RequestContext {
  db: Database;
  hasher: Hasher;
  /** Seals the authenticator-app secrets and peppers the recovery codes' hashes (SECRET_KEY). */
  vault: Vault;
  /** The realm the request is addressed to (from its host). */
  realm: Realm;
  locale: Locale;
  clientIp: string | null;
  /** The request's id (the access log's reqId), recorded with the events it causes. */
  requestId?: string | null;
  /** Tells the transport which account the request acted as, for its access log line (never the email). */
  actingAs?: (userId: string) => void;
  /** The caller's session token, from a cookie or a bearer header. */
  sessionToken: string | null;
  /** The known-device credential the client presented (cookie or header), unparsed. */
  deviceCredential?: string | null;
  /** The pending sign-in a browser presented (its cookie), waiting for the second step. */
  pendingSignInToken?: string | null;
  /** Sets and clears the client's credentials (not the signed-in session: that is ctx.auth.session). */
  cookies: SessionSink;
  /** The client's User-Agent, as it sent it (mails describe the device with it). */
  userAgent?: string | null;
  /**
   * Counts a call against the client's limit for an action; returns Retry-After seconds when over
   * it. With `key` the count is kept under that key (e.g. an account's) instead of the address.
   */
  rateLimit?: (action: RateLimitedAction, key?: string) => Promise<number | null>;
  /** The realm's own origin (https://acme.example.com), which links in mails point to. */
  origin?: string | null;
  /** The request's logger, for what the answer does not say (a mail the cap held back). */
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  /** Told of every procedure call and how it ended (the gateway's metrics and traces). */
  observer?: ProcedureObserver;
}

/** What a procedure sees: the request, plus the configuration its router was built with. */
export interface Context extends RequestContext {
  config: AccountConfig;
}

export type RateLimitedAction =
  | 'register'
  | 'signIn'
  /** Every call that checks the account's password or hashes a new one, but sign-in (13 procedures). */
  | 'passwordCheck'
  | 'forgotPassword'
  | 'resendVerification'
  | 'accountWrite'
  | 'passkeyOptions';

/** What a procedure declares about itself, for the transports (the gateway's route documentation). */
export interface ProcedureMeta {
  /** Needs a signed-in session: without one it answers 401 unauthenticated. */
  authenticated?: boolean;
}

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces and internal messages never leave the process, whatever NODE_ENV says.
    isDev: false,
    // Every /trpc error carries the service's problem; data.code is the tRPC code of its status.
    errorFormatter({ shape, error, ctx }) {
      const problem = toProblem(error, ctx?.locale ?? 'en');
      const code = trpcCodeOf(problem.status);
      return {
        ...shape,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        message: problem.title,
        data: { code, httpStatus: problem.status, problem },
      };
    },
  });

/**
 * The tRPC error body for a refusal decided before any procedure runs (unknown realm, foreign
 * origin, body type or size): the same formatter, so clients see one shape.
 */
export function trpcErrorBody(error: TRPCError, locale: Locale, path?: string) {
  return {
    error: getTRPCErrorShape({
      config: t._config,
      error,
      type: 'unknown',
      path,
      input: undefined,
      ctx: { locale } as RequestContext,
    }),
  };
}

/** A database that cannot be reached is "not ready" (503), never an internal error. */
function outageOf(error: unknown): ProblemError | null {
  return error instanceof ProblemError ? null : outageProblem((error as { cause?: unknown })?.cause ?? error);
}

/** Runs the rest of a procedure, turning an unreachable database, thrown or returned, into 503. */
async function settled<R extends { ok: boolean; error?: unknown }>(run: () => Promise<R>): Promise<R> {
  let result: R;
  try {
    result = await run();
  } catch (err) {
    throw outageOf(err) ?? err;
  }
  const outage = result.ok ? null : outageOf(result.error);
  if (outage) throw outage;
  return result;
}

/**
 * The first middleware of every procedure: hands the call to the observer, if any, with its
 * outcome ('success' or the problem code), decided after every other middleware has settled.
 */
const observed = t.middleware(({ ctx, path, next }) => {
  const { observer } = ctx;
  if (!observer) return next();
  return observer.procedure(path, async () => {
    const result = await next();
    observer.outcome(path, result.ok ? 'success' : toProblem(result.error, 'en').code);
    return result;
  });
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Counts a call against a limit (per address, or per `key`); over it, 429 rate_limited with Retry-After. */
export async function enforceRateLimit(ctx: RequestContext, action: RateLimitedAction, key?: string): Promise<void> {
  const retryAfter = ctx.rateLimit ? await ctx.rateLimit(action, key) : null;
  if (retryAfter !== null) throw rateLimited(retryAfter);
}

/** The key an account's own count is kept under (a per-address count uses the address). */
export const accountLimitKey = (userId: string) => `user:${userId}`;

/** Resolves the caller's session and user, or refuses with 401. */
async function requireSession(ctx: Context): Promise<{ session: Session; user: User }> {
  const found = ctx.sessionToken ? await findSession(ctx.db, ctx.sessionToken, ctx.realm.id, ctx.config) : null;
  if (!found) throw new ProblemError('unauthenticated');
  ctx.actingAs?.(found.user.id);
  return found;
}

/**
 * The procedure builders of a router built from `config`: each procedure sees it as ctx.config.
 * Inputs are declared with a static `.input(schema)`; checks that need the request (the
 * realm, the signed-in account) run in the resolver after it.
 */
export function proceduresFor(config: AccountConfig) {
  // One middleware before every resolver gives it its configuration (and, for authed procedures,
  // the signed-in caller): tRPC copies the context at each step, and `me` is the hottest call.
  const publicProcedure = t.procedure.use(observed).use(({ next }) => settled(() => next({ ctx: { config } })));
  const authedProcedure = t.procedure
    .use(observed)
    .meta({ authenticated: true })
    .use(({ ctx, next }) =>
      settled(async () => next({ ctx: { config, auth: await requireSession({ ...ctx, config }) } })),
    );

  /** Per-client limit, decided before validation and hashing so refusals stay cheap. */
  const limitedProcedure = (action: RateLimitedAction) =>
    publicProcedure.use(async ({ ctx, next }) => {
      await enforceRateLimit(ctx, action);
      return next();
    });

  /**
   * Every signed-in write that records an event: counted per address under `action` (before the
   * session is looked up, so a refusal costs nothing), then per account under 'accountWrite', so
   * a flood of calls cannot bury the account's real events.
   */
  const authedLimitedProcedure = (action: RateLimitedAction) =>
    limitedProcedure(action)
      .meta({ authenticated: true })
      .use(async ({ ctx, next }) => {
        const auth = await requireSession(ctx);
        await enforceRateLimit(ctx, 'accountWrite', accountLimitKey(auth.user.id));
        return next({ ctx: { auth } });
      });

  /** A signed-in write that hashes nothing: its per-address count is 'accountWrite' too. */
  const accountWriteProcedure = authedLimitedProcedure('accountWrite');

  return { publicProcedure, limitedProcedure, authedProcedure, authedLimitedProcedure, accountWriteProcedure };
}

export type Procedures = ReturnType<typeof proceduresFor>;
