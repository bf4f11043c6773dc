import { PROBLEM_STATUS, problemSchema, type AppRouter, type ProblemCode } from '@accounts/api';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FormRoute } from './form-routes.js';
import { procedureDef } from './procedures.js';
import { TOKEN_DELIVERY_HEADER } from './session-transport.js';

interface SeenRoute {
  method: string;
  url: string;
  doc?: FormRoute;
}

const seen = new WeakMap<FastifyInstance, SeenRoute[]>();

/** Every /users/* route registered on the app (documented or not), for the test that keeps them in step. */
export const usersRoutesOf = (app: FastifyInstance): readonly SeenRoute[] => seen.get(app) ?? [];

// What any route can answer before its procedure runs.
const EVERY_ROUTE: ProblemCode[] = ['invalid_host', 'realm_not_found', 'not_ready'];
const EVERY_POST: ProblemCode[] = ['invalid_body', 'cross_origin', 'payload_too_large', 'unsupported_media_type'];

const PENDING_COOKIE_SET =
  "A browser's pending sign-in (`pending_sign_in`, or `__Host-pending_sign_in` over https; HttpOnly, SameSite=Strict, valid at most 5 minutes), to send to POST /users/login/second_factor. None for a client that sent X-Session-Delivery: token: it gets `pendingToken` in the body.";
const PENDING_COOKIE_SENT =
  'The pending sign-in cookie set with `401 second_factor_required` (named `__Host-pending_sign_in` over https). A program sends the `pending_token` field instead.';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    // A Date leaves as JSON.stringify writes it: an RFC 3339 string.
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
};

/** A success body: tokens a program asked for (`session`, `knownDevice`) only on routes that hand out a session. */
function successSchema(output: z.ZodObject, issuesSession: boolean): z.ZodObject {
  // Only an output that carries tokens is rebuilt (a rebuilt object is closed: a loose one, as the
  // WebAuthn options are, keeps its own schema).
  if (issuesSession || !('session' in output.shape || 'knownDevice' in output.shape)) return output;
  const shape: Record<string, z.ZodType> = { ...output.shape };
  delete shape.session;
  delete shape.knownDevice;
  return z.object(shape);
}

/** The fields a route's address holds (`/users/oauth/:provider/start`). */
const pathFields = (url: string) => [...url.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** A route's input fields as parameters: a GET's in the query, and any route's address fields in the path. */
function parameters(input: z.ZodObject, url: string, method: string) {
  const schema = jsonSchema(input, 'input') as { properties?: Record<string, object>; required?: string[] };
  const inPath = pathFields(url);
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => method === 'GET' || inPath.includes(name))
    .map(([name, s]) => ({
      name,
      in: inPath.includes(name) ? 'path' : 'query',
      required: inPath.includes(name) || (schema.required?.includes(name) ?? false),
      schema: s,
    }));
}

/** A body's schema without the fields the address holds. */
function bodySchema(input: z.ZodObject, url: string) {
  const shape: Record<string, z.ZodType> = { ...input.shape };
  for (const f of pathFields(url)) delete shape[f];
  return jsonSchema(z.object(shape), 'input');
}

/** A browser's step: every answer is a redirect (upstream-redirects.ts). */
const REDIRECT_RESPONSES = {
  303: {
    description:
      "A redirect: to the upstream provider, to the next page of this site, or, for a refusal, to the sign-in page (or the connected accounts, for someone signed in) with the problem's code as `problem` in its query.",
    headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } },
  },
};

function operation(router: AppRouter, method: string, url: string, doc: FormRoute) {
  const { input, output, meta } = procedureDef(router, doc.procedure);
  // What the procedure does and refuses is its own meta; a procedure that needs a session says so
  // there too (without one it answers 401).
  const problems = meta.problems ?? [];
  const transport = [
    ...EVERY_ROUTE,
    ...(method === 'POST'
      ? EVERY_POST.filter((c) => !(doc.crossSite && c === 'cross_origin')).map((c) =>
          c === 'unsupported_media_type' && doc.body === 'json' ? 'unsupported_media_type_json' : c,
        )
      : []),
  ];
  // A browser's step answers the procedure's refusals as redirects too: only the transport's are bodies.
  const codes = doc.redirect
    ? transport
    : [...transport, ...(meta.authenticated ? ['unauthenticated' as const] : []), ...problems];
  // A JSON body has no repeated fields (an array is a value its schema judges): duplicate_field is a form's.
  if (!doc.redirect && input && Object.keys(input.shape).length)
    codes.push(...(doc.body === 'json' ? [] : (['duplicate_field'] as const)), 'validation_failed');
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set(codes))
    byStatus.set(PROBLEM_STATUS[code], [...(byStatus.get(PROBLEM_STATUS[code]) ?? []), code]);

  const success = output && successSchema(output, doc.issuesSession ?? false);
  const responses: Record<string, unknown> = doc.redirect
    ? { ...REDIRECT_RESPONSES }
    : {
        [doc.status]: {
          description: doc.issuesSession
            ? 'Success. The session is set as a cookie, or, when asked for with X-Session-Delivery: token, returned as `session` in the body.'
            : 'Success.',
          ...(doc.issuesSession
            ? {
                headers: {
                  'Set-Cookie': {
                    description:
                      'The session cookie (`session`, or `__Host-session` over https), unless the token was asked for in the body.',
                    schema: { type: 'string' },
                  },
                },
              }
            : {}),
          // A download: the browser keeps the answer as a file, named for the realm and the day (UTC).
          ...(doc.download
            ? {
                headers: {
                  'Content-Disposition': {
                    description: 'A file to keep: `attachment; filename="account-<realm>-<YYYY-MM-DD>.json"`.',
                    schema: { type: 'string' },
                  },
                },
              }
            : {}),
          content: { 'application/json': { schema: success ? jsonSchema(success, 'output') : {} } },
        },
      };
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const waits = list.some((c) =>
      ['rate_limited', 'too_many_attempts', 'too_many_codes', 'server_busy', 'not_ready'].includes(c),
    );
    const headers = {
      ...(waits
        ? { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } } }
        : {}),
      // The one refusal that hands something out: the pending sign-in of the second step.
      ...(list.includes('second_factor_required')
        ? { 'Set-Cookie': { description: PENDING_COOKIE_SET, schema: { type: 'string' } } }
        : {}),
    };
    responses[status] = {
      description: `Problem: ${list.join(', ')}.`,
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: jsonSchema(problemSchema(list).extend({ status: z.literal(status) }), 'output'),
        },
      },
    };
  }
  return {
    operationId: doc.procedure,
    summary: meta.summary,
    ...(meta.authenticated ? { security: [{ sessionCookie: [] }, { bearer: [] }] } : { security: [] }),
    parameters: [
      ...(doc.issuesSession
        ? [
            {
              name: TOKEN_DELIVERY_HEADER,
              in: 'header',
              required: false,
              description: 'Send `token` to get the session token in the body (and no cookie).',
              schema: { type: 'string', enum: ['token'] },
            },
          ]
        : []),
      // The routes of a pending sign-in's second step (and its passkey options) read it from its cookie.
      ...(problems.includes('sign_in_expired')
        ? [
            {
              name: 'pending_sign_in',
              in: 'cookie',
              required: false,
              description: PENDING_COOKIE_SENT,
              schema: { type: 'string' },
            },
          ]
        : []),
      ...(input ? parameters(input, url, method) : []),
    ],
    ...(method === 'POST'
      ? {
          requestBody: {
            required: input !== undefined,
            content: {
              [doc.body === 'json' ? 'application/json' : 'application/x-www-form-urlencoded']: {
                schema: input ? bodySchema(input, url) : { type: 'object' },
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** A route's path as OpenAPI writes it: `/users/oauth/{provider}/start` for fastify's `:provider`. */
export const documentedPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/** The OpenAPI 3.1 document of every documented /users/* route registered on the app. */
export function openApiDocument(app: FastifyInstance, router: AppRouter) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of usersRoutesOf(app)) {
    if (!route.doc) continue;
    (paths[documentedPath(route.url)] ??= {})[route.method.toLowerCase()] = operation(
      router,
      route.method,
      route.url,
      route.doc,
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounts service: form routes',
      version: '1',
      description:
        "Generated from the service's own input and output schemas. Errors are RFC 9457 problems; see docs/http-api.md.",
    },
    paths,
    components: {
      securitySchemes: {
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'session',
          description: 'The session cookie; named `__Host-session` over https.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A session token received with X-Session-Delivery: token.',
        },
      },
    },
  };
}

/**
 * Records every /users/* route as it is registered (so call this before registering them),
 * and serves the document at GET /openapi.json.
 */
export function registerOpenApi(app: FastifyInstance, router: AppRouter) {
  const routes: SeenRoute[] = [];
  seen.set(app, routes);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/users/')) return;
    for (const method of [route.method].flat())
      if (method !== 'HEAD') routes.push({ method, url: route.url, doc: route.config?.openapi });
  });
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', () => (document ??= openApiDocument(app, router)));
}
