import { getTRPCErrorShape, initTRPC, type TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { Session, User } from '@accounts/db';
import type { Locale } from '@accounts/validators';
import type { AccountConfig } from './kernel/config.js';
import {
  accountLimitKey,
  enforceRateLimit,
  type Context,
  type ProcedureMeta,
  type RateLimitedAction,
  type RequestContext,
} from './kernel/context.js';
import { outageProblem, ProblemError, problemCodeOf, toProblem, trpcCodeOf } from './kernel/errors.js';
import { findSession } from './records/sessions.js';

// The procedure builders every capability declares its procedures with: tRPC's instance, its
// error shape, the observer and the session check. What a procedure sees is kernel/context.ts.

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces and internal messages never leave the process, whatever NODE_ENV says.
    isDev: false,
    // Every /trpc error carries the service's problem, written here alone (the observer and the
    // gateway's onError take only its code: problemCodeOf); data.code is the tRPC code of its status.
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
    observer.outcome(path, result.ok ? 'success' : problemCodeOf(result.error));
    return result;
  });
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

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
