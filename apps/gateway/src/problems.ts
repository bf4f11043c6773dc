import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ProblemError, problemForStatus, toProblem, type Problem } from '@accounts/api';
import { isUnavailable } from '@accounts/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './locale.js';

/** Maps what fastify and its plugins throw onto our problem codes. */
function asProblemError(err: unknown): unknown {
  if (err instanceof ProblemError) return err;
  if (isUnavailable(err)) return new ProblemError('not_ready', { retryAfter: 5 });
  const status = (err as { statusCode?: number }).statusCode;
  const code = status ? problemForStatus(status) : 'internal';
  return code === 'internal' ? err : new ProblemError(code);
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
  const problem = toProblem(new ProblemError(err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'invalid_body'), 'en');
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
