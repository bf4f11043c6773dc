import { ProblemError, toProblem, type AppRouter } from '@accounts/api';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { hasBody, mediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';

/** The typed API for the web app and tRPC clients: the same procedures as the form routes. */
export async function registerTrpc(app: FastifyInstance, services: Services) {
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (req) => {
      // tRPC answers HEAD with an empty 204 on any path, mutations included; nothing here serves HEAD.
      if (req.method === 'HEAD') throw new ProblemError('method_not_allowed');
      // A declared type counts even without a body: tRPC would take multipart/form-data for a mutation.
      if (req.method === 'POST' && (hasBody(req) || req.headers['content-type'] !== undefined) && mediaType(req) !== 'application/json')
        throw new ProblemError('unsupported_media_type_json');
    });
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: services.router,
        // One procedure per request keeps per-procedure limits and statuses exact.
        allowBatching: false,
        createContext: ({ req, res }) => contextFor(req, res, services).ctx,
        responseMeta({ ctx, errors }) {
          // tRPC sends its early refusals (batch paths, content types) as text/plain; every body here is JSON.
          const headers: Record<string, string> = { 'content-type': 'application/json', 'content-language': ctx?.locale ?? 'en' };
          const retryAfter = errors[0] ? toProblem(errors[0], 'en').retryAfter : undefined;
          if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
          return { headers };
        },
        onError({ error, req }) {
          if (error.code === 'INTERNAL_SERVER_ERROR' && !(error instanceof ProblemError)) req.log.error({ err: error.cause ?? error }, 'procedure failed');
        },
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });
}
