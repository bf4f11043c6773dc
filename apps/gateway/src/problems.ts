import { ProblemError, toProblem, type Problem, type ProblemCode } from '@accounts/api';
import { isUnavailable } from '@accounts/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './locale.js';

/** Maps what fastify and its plugins throw onto our problem codes. */
function asProblemError(err: unknown): unknown {
  if (err instanceof ProblemError) return err;
  if (isUnavailable(err)) return new ProblemError('not_ready', { retryAfter: 5 });
  const e = err as { statusCode?: number; code?: string };
  const byStatus: Record<number, ProblemCode> = {
    400: 'invalid_body',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
  };
  const code = e.statusCode ? byStatus[e.statusCode] : undefined;
  return code ? new ProblemError(code) : err;
}

export const isTrpcRequest = (req: FastifyRequest) => req.url.startsWith('/trpc/') || req.url === '/trpc';

/**
 * Sends an error as application/problem+json (RFC 9457), or, under /trpc, in tRPC's error
 * envelope carrying the same problem, so typed clients read it as a TRPCClientError.
 */
export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: unknown) {
  const locale = localeOf(req);
  const problem: Problem = toProblem(asProblemError(err), locale);
  if (problem.status >= 500 && problem.code === 'internal') req.log.error({ err }, 'request failed');
  reply.code(problem.status).header('content-language', locale);
  if (problem.retryAfter !== undefined) reply.header('retry-after', String(problem.retryAfter));
  if (isTrpcRequest(req)) {
    return reply.type('application/json').send({
      error: { message: problem.title, code: -32600, data: { code: problem.code, httpStatus: problem.status, problem } },
    });
  }
  return reply.type('application/problem+json').send(problem);
}
