import { ProblemError, type SessionSink } from '@accounts/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callProcedure, fieldsOf, pickFields, sendDownload } from './form-adapter.js';
import { procedureAt } from './procedures.js';
import { problemOf } from './problems.js';
import { mediaType } from './request-body.js';
import { contextFor, type Services } from './request-context.js';
import { isPagePost, redirectAfterForm, type Pages } from './web-app.js';

/** What a form posted to a page never gets back in the page: passwords, codes (a recovery code too), tokens. */
const SECRET_FIELD = /password|(^|_)code$|token$/;

/** The posted fields the page may show again (text only; never a secret). */
const keptValues = (body: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(body).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === 'string' && entry[0] !== '_form' && !SECRET_FIELD.test(entry[0]),
    ),
  );

/**
 * A page's form posted by the browser itself, without scripts (or before they ran): the form's
 * procedure (the page's PAGE_FORMS row, named by the `_form` field) runs with the same context as
 * /trpc and the form routes; then the person lands where the app would take them (303), or on
 * the page again, showing the result, or what was wrong (with the problem's status).
 */
export async function answerPagePost(req: FastifyRequest, reply: FastifyReply, services: Services, pages: Pages) {
  if (mediaType(req) !== 'application/x-www-form-urlencoded') throw new ProblemError('unsupported_media_type');
  const body = (req.body ?? {}) as Record<string, unknown>;
  const name = typeof body._form === 'string' ? body._form : '';
  const target = pages.formOf(req.url, name);
  const procedure = target && procedureAt(services.router, target.procedure);
  if (!target || procedure?.type !== 'mutation') throw new ProblemError('not_found');
  const path = target.procedure;

  // The page shown afterwards sees the session as the procedure left it (a new one, or none).
  const { ctx } = contextFor(req, reply, services);
  let sessionToken = ctx.sessionToken;
  const sink: SessionSink = {
    ...ctx.cookies,
    issue(session) {
      sessionToken = session.token;
      ctx.cookies.issue(session);
    },
    clear() {
      sessionToken = null;
      ctx.cookies.clear();
    },
  };
  const values = keptValues(body);
  let result: unknown;
  try {
    result = await callProcedure(
      services,
      path,
      { ...ctx, cookies: sink },
      pickFields(body, fieldsOf(services.router, path)),
    );
  } catch (err) {
    const problem = problemOf(req, err);
    if (problem.retryAfter !== undefined) reply.header('retry-after', String(problem.retryAfter));
    const status = target.continues.includes(problem.code) ? 200 : problem.status;
    return pages.sendAfterForm(req, reply, { ...ctx, sessionToken }, status, { form: name, values, problem });
  }
  if (target.download) return sendDownload(reply, ctx, result);
  const done = pages.formDone(name, result, req.url);
  if (done) return redirectAfterForm(req, reply, done);
  return pages.sendAfterForm(req, reply, { ...ctx, sessionToken }, 200, { form: name, values, result });
}

/**
 * A POST route for each page that has forms (the web build's `formPages`), so that each page's
 * forms are found among the routes. A post there that is no page's form (no HTML asked for) is
 * answered as at an address without a route. A form posted to another address that reads as a
 * page (the not-found page's sign-out, a trailing slash) is the not-found handler's (app.ts).
 */
export function registerPagePosts(app: FastifyInstance, services: Services, pages: Pages) {
  for (const url of pages.formPages)
    app.post(url, async (req, reply) => {
      if (isPagePost(req)) return answerPagePost(req, reply, services, pages);
      reply.callNotFound();
      return reply;
    });
}
