import { ProblemError, type AppRouter, type ProcedurePath, type RequestContext } from '@accounts/api';
import { callTRPCProcedure } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM_ROUTES } from './form-routes.js';
import { procedureDef } from './procedures.js';
import { problemOf, sendProblem } from './problems.js';
import { hasBody, mediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';
import { redirectTo, upstreamRedirect } from './upstream-redirects.js';

type Fields = Record<string, unknown>;

const FORM_TYPE = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** The form fields of a procedure: the keys of its input (none for a procedure without input). */
export const fieldsOf = (router: AppRouter, path: ProcedurePath): string[] =>
  Object.keys(procedureDef(router, path).input?.shape ?? {});

/**
 * Picks the known fields; unknown ones are ignored, a repeated one refuses the request. A form's
 * values are text; a JSON body's (`json`) are taken as they are, for the procedure's schema to judge.
 */
export function pickFields(body: unknown, fields: readonly string[], json = false): Fields {
  const form = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const input: Fields = {};
  // A form field sent twice arrives as an array; JSON has no repeated fields: an array there is a
  // value like any other, for the procedure's schema to judge (422, not 400 duplicate_field).
  const repeated = json ? [] : fields.filter((f) => Array.isArray(form[f]));
  if (repeated.length)
    throw new ProblemError('duplicate_field', {
      fields: repeated.map((field) => ({ field, code: 'duplicate_field' })),
    });
  for (const f of fields) {
    if (!Object.hasOwn(form, f)) continue;
    if (json || typeof form[f] === 'string') input[f] = form[f];
  }
  return input;
}

/** Calls a procedure with an input, as a server-side caller does (the procedure validates it). */
export const callProcedure = (services: Services, path: ProcedurePath, ctx: RequestContext, input: unknown) =>
  callTRPCProcedure({
    router: services.router,
    path,
    type: procedureDef(services.router, path).type,
    ctx,
    getRawInput: () => Promise.resolve(input),
    signal: undefined,
    batchIndex: 0,
  }) as Promise<unknown>;

/**
 * A procedure's answer sent as a file to keep, named for the realm and the day. Whatever address
 * it was posted to (a page's form too), no cache keeps it: it is the person's data.
 */
export function sendDownload(reply: FastifyReply, ctx: RequestContext, result: unknown) {
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header('content-disposition', `attachment; filename="account-${ctx.realm.slug}-${day}.json"`)
    .header('content-language', ctx.locale)
    .header('cache-control', 'no-store')
    .send(result);
}

/** Registers every row of FORM_ROUTES: each calls its procedure with the request's fields. */
export function registerFormRoutes(app: FastifyInstance, services: Services) {
  for (const route of FORM_ROUTES) {
    const fields = fieldsOf(services.router, route.procedure);
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const { ctx } = contextFor(req, reply, services);
      try {
        // A POST's fields come from its form body, a GET's from its query string.
        // The address's own fields (`:provider`) are the input's too, and win over the body's.
        const sent = route.method === 'POST' ? req.body : req.query;
        const params = req.params as Record<string, string>;
        const input = fields.length
          ? pickFields(
              Object.keys(params).length ? { ...(sent as object), ...params } : sent,
              fields,
              route.body === 'json',
            )
          : undefined;
        const result = await callProcedure(services, route.procedure, ctx, input);
        if (route.redirect) return redirectTo(reply, upstreamRedirect(route, req, { result }));
        if (route.download) return sendDownload(reply.code(route.status), ctx, result);
        // For a token client the procedure's result carries the session (and known-device) tokens.
        return reply.code(route.status).header('content-language', ctx.locale).send(result);
      } catch (err) {
        if (route.redirect) return redirectTo(reply, upstreamRedirect(route, req, { problem: problemOf(req, err) }));
        return sendProblem(req, reply, err);
      }
    };
    app.route({
      method: route.method,
      url: route.url,
      config: { openapi: route },
      // Decided before the body is read: only the route's own body type is accepted.
      onRequest: (req, _reply, done) => {
        const json = route.body === 'json';
        if (route.method === 'POST' && hasBody(req) && mediaType(req) !== (json ? JSON_TYPE : FORM_TYPE))
          return done(new ProblemError(json ? 'unsupported_media_type_json' : 'unsupported_media_type'));
        done();
      },
      handler,
    });
  }
}
