import { ProblemError, problemCodeOf, type AppRouter } from '@accounts/api';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { methodOf, procedureAt } from './procedures.js';
import { hasBody, mediaType, normalizeMediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';

type TrpcOptions = FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];

/**
 * The headers of a /trpc answer. An error's Retry-After is read from the problem the router's
 * formatter already put in the body (`data.problem`), not computed a second time.
 */
export const responseHeaders: NonNullable<TrpcOptions['responseMeta']> = ({ ctx, data }) => {
  // tRPC sends its early refusals (batch paths, content types) as text/plain; every body here is JSON.
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-language': ctx?.locale ?? 'en',
  };
  const [first] = data;
  const retryAfter = first && 'error' in first ? first.error.data.problem.retryAfter : undefined;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return { headers };
};

/** The typed API for the web app and tRPC clients: the same procedures as the form routes. */
export async function registerTrpc(app: FastifyInstance, services: Services) {
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      // Any other method is refused here, with the one it takes (tRPC would answer HEAD with an
      // empty 204 on any path, and PUT with a 415): 405 and Allow (RFC 9110 §15.5.6).
      const path = (req.params as { path?: string }).path;
      const procedure = path === undefined ? null : procedureAt(services.router, path);
      const method = procedure && methodOf(procedure);
      if (method && req.method !== method) {
        reply.header('allow', method);
        throw new ProblemError('method_not_allowed');
      }
      // No such procedure: tRPC answers GET and POST with its 404; nothing here takes another method.
      if (!method && req.method !== 'GET' && req.method !== 'POST') throw new ProblemError('not_found');
      // A declared type counts even without a body: tRPC would take multipart/form-data for a mutation.
      if (
        req.method === 'POST' &&
        (hasBody(req) || req.headers['content-type'] !== undefined) &&
        mediaType(req) !== 'application/json'
      )
        throw new ProblemError('unsupported_media_type_json');
      // tRPC compares the type case-sensitively; APPLICATION/JSON is application/json.
      normalizeMediaType(req);
    });
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: services.router,
        // One procedure per request keeps per-procedure limits and statuses exact.
        allowBatching: false,
        createContext: ({ req, res }) => contextFor(req, res, services).ctx,
        responseMeta: responseHeaders,
        onError({ error, req }) {
          // For the refusal events and the access log (plugins/refusals.ts): the code of the
          // problem the router's formatter writes into the body.
          req.problemCode = problemCodeOf(error);
          if (error.code === 'INTERNAL_SERVER_ERROR' && !(error instanceof ProblemError))
            req.log.error({ err: error.cause ?? error }, 'procedure failed');
        },
      } satisfies TrpcOptions,
    });
  });
}
