import type { AppRouter } from '@accounts/api';
import { httpLink, TRPCClientError, type TRPCClientErrorLike } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import type { inferRouterOutputs } from '@trpc/server';

export const trpc = createTRPCReact<AppRouter>();

/** What each procedure answers, as the app receives it: `RouterOutputs['account']['me']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export type ApiError = TRPCClientErrorLike<AppRouter>;
/** The RFC 9457-style body the server attaches to every refusal (inferred from the router's error formatter). */
export type Problem = NonNullable<ApiError['data']>['problem'];

/**
 * Same-origin calls only: the gateway refuses cross-origin writes and keeps the session in an
 * HttpOnly cookie. It does not batch, so each call is its own request.
 */
export function createApiClient(fetchImpl?: typeof fetch) {
  return trpc.createClient({
    links: [httpLink({ url: '/trpc', fetch: fetchImpl })],
  });
}

export function problemOf(error: unknown): Problem | null {
  if (!(error instanceof TRPCClientError)) return null;
  const problem = (error as ApiError).data?.problem;
  return problem && typeof problem.code === 'string' ? problem : null;
}
