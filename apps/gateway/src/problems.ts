import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { outageProblem, ProblemError, problemForStatus, toProblem, trpcErrorBody, type Problem } from '@accounts/api';
import { TRPCError } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './locale.js';
import { pathOf } from './request-target.js';

/** Maps what fastify and its plugins throw onto our problem codes. */
function asProblemError(err: unknown): unknown {
  if (err instanceof ProblemError) return err;
  const outage = outageProblem(err);
  if (outage) return outage;
  const status = (err as { statusCode?: number }).statusCode;
  const code = status ? problemForStatus(status) : 'internal';
  return code === 'internal' ? err : new ProblemError(code);
}

export const isTrpcRequest = (req: FastifyRequest) => /^\/trpc(?:\/|$)/.test(pathOf(req));

/** The procedure path of a /trpc URL, when it names one. */
const trpcPath = (req: FastifyRequest) => /^\/trpc\/([^/]+)/.exec(pathOf(req))?.[1];

/** The problem an error is answered with (an internal one is logged here, once). */
export function problemOf(req: FastifyRequest, err: unknown): Problem {
  const problem = toProblem(asProblemError(err), localeOf(req));
  if (problem.status >= 500 && problem.code === 'internal') req.log.error({ err }, 'request failed');
  // For the refusal events and the access log (plugins/refusals.ts), whatever answers it.
  req.problemCode = problem.code;
  return problem;
}

/**
 * Sends an error as application/problem+json (RFC 9457), or, under /trpc, as the tRPC error
 * its procedures answer with (the router's own formatter, the same problem inside), so a
 * refusal decided before any procedure runs reads like any other TRPCClientError.
 */
export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: unknown) {
  const locale = localeOf(req);
  const error = asProblemError(err);
  // Under /trpc the router's formatter puts the problem in tRPC's body; it is read from there,
  // not computed twice. (An error that is no TRPCError is an internal one.)
  const trpcBody = isTrpcRequest(req)
    ? trpcErrorBody(error instanceof TRPCError ? error : new ProblemError('internal'), locale, trpcPath(req))
    : null;
  const problem: Problem = trpcBody ? trpcBody.error.data.problem : problemOf(req, err);
  if (trpcBody) req.problemCode = problem.code;
  if (trpcBody && problem.status >= 500 && problem.code === 'internal') req.log.error({ err }, 'request failed');
  reply.code(problem.status).header('content-language', locale);
  if (problem.retryAfter !== undefined) reply.header('retry-after', String(problem.retryAfter));
  if (trpcBody) return reply.type('application/json').send(trpcBody);
  return reply.type('application/problem+json').send(problem);
}

/**
 * Answers what Node's HTTP parser refuses before fastify sees a request (headers over 16 KiB,
 * a malformed request line), as problem+json like every other error. A client that went
 * silent (a timeout) or away gets no answer.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const problem = toProblem(
    new ProblemError(err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'invalid_body'),
    'en',
  );
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
