import { ProblemError } from '@accounts/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EMAIL_FORM_ROUTES } from './email-form-routes.js';
import { fieldsOf, type RouteDoc } from './openapi.js';
import { sendProblem } from './problems.js';
import { SECURITY_FORM_ROUTES } from './security-form-routes.js';
import { hasBody, mediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';

type Fields = Record<string, string>;

interface FormRoute extends RouteDoc {
  method: 'GET' | 'POST';
  url: `/users/${string}`;
}

/**
 * The seed's form endpoints, each a thin adapter onto the tRPC procedure it names: its fields
 * are that procedure's input, and the OpenAPI document is built from this table. A new
 * /users/* route is a new row.
 */
export const FORM_ROUTES: readonly FormRoute[] = [
  {
    method: 'POST',
    url: '/users/register',
    procedure: 'account.register',
    status: 201,
    summary: "Create an account in the realm of the Host, and sign it in; a verification link is mailed unless the address's mail cap is reached.",
    issuesSession: true,
    problems: ['email_taken', 'rate_limited', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/change_password',
    procedure: 'account.changePassword',
    status: 200,
    summary: "Change the signed-in user's password; other sessions end, this one gets a new token.",
    authenticated: true,
    issuesSession: true,
    problems: ['unauthenticated', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/login',
    procedure: 'account.signIn',
    status: 200,
    summary: 'Sign in with email and password.',
    issuesSession: true,
    problems: ['rate_limited', 'too_many_attempts', 'server_busy', 'email_not_verified'],
  },
  { method: 'POST', url: '/users/logout', procedure: 'account.signOut', status: 200, summary: 'Sign out: the session ends and its cookie is cleared.', problems: [] },
  { method: 'GET', url: '/users/me', procedure: 'account.me', status: 200, summary: 'The signed-in user.', authenticated: true, problems: ['unauthenticated'] },
  ...SECURITY_FORM_ROUTES,
  ...EMAIL_FORM_ROUTES,
];

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Picks the known fields; unknown ones are ignored, a repeated one refuses the request. */
function pickFields(body: unknown, fields: readonly string[]): Fields {
  const form = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const input: Fields = {};
  const repeated = fields.filter((f) => Array.isArray(form[f]));
  if (repeated.length) throw new ProblemError('duplicate_field', { fields: repeated.map((field) => ({ field, code: 'duplicate_field' })) });
  for (const f of fields) if (typeof form[f] === 'string') input[f] = form[f] as string;
  return input;
}

/** The caller's function for a procedure path such as "account.register". */
const procedureCall = (caller: object, path: string) =>
  path.split('.').reduce<any>((node, key) => node[key], caller) as (input?: Fields) => Promise<object>;

export function registerFormRoutes(app: FastifyInstance, services: Services) {
  for (const route of FORM_ROUTES) {
    const fields = fieldsOf(services.router, route.procedure);
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const { ctx } = contextFor(req, reply, services);
      try {
        const call = procedureCall(services.createCaller(ctx), route.procedure);
        // A POST's fields come from its form body, a GET's from its query string.
        const result = fields.length ? await call(pickFields(route.method === 'POST' ? req.body : req.query, fields)) : await call();
        // For a token client the procedure's result carries the session (and known-device) tokens.
        return reply.code(route.status).header('content-language', ctx.locale).send(result);
      } catch (err) {
        return sendProblem(req, reply, err);
      }
    };
    app.route({
      method: route.method,
      url: route.url,
      config: { openapi: route },
      // Decided before the body is read: only form bodies are accepted here.
      onRequest: async (req) => {
        if (route.method === 'POST' && hasBody(req) && mediaType(req) !== FORM_TYPE) throw new ProblemError('unsupported_media_type');
      },
      handler,
    });
  }
}
