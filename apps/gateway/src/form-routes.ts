import { createCaller, ProblemError } from '@accounts/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problems.js';
import { hasBody, mediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';
import { wantsTokenInBody } from './session-transport.js';

type Caller = ReturnType<typeof createCaller>;
type Fields = Record<string, string>;

interface FormRoute {
  fields: readonly string[];
  status: number;
  call(caller: Caller, input: Fields): Promise<object>;
}

// The seed's form endpoints, each a thin adapter onto the same tRPC procedure as /trpc.
const FORMS: Record<string, FormRoute> = {
  '/users/register': {
    fields: ['name', 'email', 'password', 'password2'],
    status: 201,
    call: (c, i) => c.account.register(i as never),
  },
  '/users/change_password': {
    fields: ['current_password', 'new_password', 'confirm_password'],
    status: 200,
    call: (c, i) => c.account.changePassword(i as never),
  },
  '/users/login': { fields: ['email', 'password'], status: 200, call: (c, i) => c.account.signIn(i as never) },
  '/users/logout': { fields: [], status: 200, call: (c) => c.account.signOut() },
};

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

export function registerFormRoutes(app: FastifyInstance, services: Services) {
  const run = async (req: FastifyRequest, reply: FastifyReply, route: FormRoute | null) => {
    const { ctx, session } = contextFor(req, reply, services, wantsTokenInBody(req));
    try {
      const caller = createCaller(ctx);
      const result = route ? await route.call(caller, pickFields(req.body, route.fields)) : await caller.account.me();
      const body = session.delivered ? { ...result, session: session.delivered } : result;
      return reply.code(route?.status ?? 200).header('content-language', ctx.locale).send(body);
    } catch (err) {
      return sendProblem(req, reply, err);
    }
  };

  for (const [url, route] of Object.entries(FORMS)) {
    app.post(url, {
      // Decided before the body is read: only form bodies are accepted here.
      onRequest: async (req) => {
        if (hasBody(req) && mediaType(req) !== FORM_TYPE) throw new ProblemError('unsupported_media_type');
      },
      handler: (req, reply) => run(req, reply, route),
    });
  }
  app.get('/users/me', (req, reply) => run(req, reply, null));
}
