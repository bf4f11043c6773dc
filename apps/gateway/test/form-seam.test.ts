import { createAppRouter, DEFAULT_ACCOUNT_CONFIG, ProblemError, type ProcedurePath } from '@accounts/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf } from '../src/form-adapter.js';
import { FORM_ROUTES } from '../src/form-routes.js';
import { documentedPath } from '../src/openapi.js';
import { methodOf, procedureAt, procedureDef } from '../src/procedures.js';
import { responseHeaders } from '../src/trpc-routes.js';
import { startGateway, type Gateway } from './support/gateway.js';

// The typed seam between the gateway's route table and the router: paths from the router's
// types, what a procedure declares (its kind, input, meta) read in one place.
const router = createAppRouter(DEFAULT_ACCOUNT_CONFIG);

describe('procedure paths', () => {
  it('are the router’s own: a path it lacks does not compile', () => {
    const known: ProcedurePath = 'account.changePassword';
    // @ts-expect-error: no such procedure (typechecked by `tsc -p tsconfig.json`)
    const unknown: ProcedurePath = 'account.changePasword';
    expect(procedureAt(router, known)).not.toBeNull();
    expect(procedureAt(router, unknown)).toBeNull();
  });

  it('resolve only procedures, never an object’s own machinery', () => {
    for (const path of ['toString', '__proto__', 'constructor', 'account', 'account.', ''])
      expect(procedureAt(router, path), path).toBeNull();
  });

  it('give a procedure’s kind, input fields and meta', () => {
    expect(methodOf(procedureDef(router, 'account.me'))).toBe('GET');
    expect(methodOf(procedureDef(router, 'account.register'))).toBe('POST');
    expect(fieldsOf(router, 'account.signIn').sort()).toEqual(['email', 'password']);
    expect(fieldsOf(router, 'account.me')).toEqual([]);
    expect(procedureDef(router, 'account.me').meta.authenticated).toBe(true);
    expect(procedureDef(router, 'account.signIn').meta.authenticated).toBeFalsy();
  });
});

describe('the form route table', () => {
  it('names each route’s method as its procedure takes it (GET a query, POST a mutation)', () => {
    // A GET never runs a mutation, not even a download (a link from another site would start it
    // with the person's session). The only exceptions are the two steps OAuth itself makes GETs:
    // a "Continue with" link, which only opens a flow bound to this browser, and the provider's
    // redirect back, which completes only a flow this browser opened. The other way round, one
    // query is a POST: checking a mailed link, whose token travels in the body, never in an address.
    expect(
      FORM_ROUTES.filter((r) => r.method !== methodOf(procedureDef(router, r.procedure))).map(
        (r) => `${r.method} ${r.url}`,
      ),
    ).toEqual(['GET /users/oauth/:provider/start', 'GET /users/oauth/:provider/callback', 'POST /users/check_link']);
  });
});

describe('documented sessions, from the procedures', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite');
  });
  afterAll(() => gw?.close());

  it('a route is documented as needing a session exactly when, without one, it answers 401', async () => {
    type Problem = { content: Record<string, { schema: { properties: { code: { enum: string[] } } } }> };
    const doc = (await gw.send('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { security: object[]; responses: Record<string, Problem> }>>;
    };
    for (const route of FORM_ROUTES) {
      const url = route.url.replace(':provider', 'none');
      const res = route.method === 'POST' ? await gw.form(url, {}) : await gw.send('GET', url);
      const op = doc.paths[documentedPath(route.url)]![route.method.toLowerCase()]!;
      const what = `${route.method} ${route.url} → ${res.status}`;
      // A browser's step (a redirect row) sends someone without a session to the sign-in page.
      const unauthenticated = route.redirect
        ? res.status === 303 && String(res.headers.location).startsWith('/login?next=')
        : res.status === 401 && res.json.code === 'unauthenticated';
      expect(op.security.length > 0, what).toBe(unauthenticated);
      // A 401 is also a sign-in's second_factor_required and sign_in_expired, which need no
      // session: `unauthenticated` is among its codes exactly where one is needed.
      const codes = op.responses['401']?.content['application/problem+json']!.schema.properties.code.enum ?? [];
      if (!route.redirect) expect(codes.includes('unauthenticated'), what).toBe(unauthenticated);
    }
  });
});

describe('the headers of a /trpc answer', () => {
  it('take Retry-After from the problem the formatter put in the body, not from the error again', () => {
    const shaped = {
      error: {
        code: -32029,
        message: 'Too many requests.',
        data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, problem: { status: 429, retryAfter: 7 } },
      },
    };
    const args = {
      ctx: { locale: 'de' },
      data: [shaped],
      errors: [new ProblemError('rate_limited', { retryAfter: 99 })],
    } as unknown as Parameters<typeof responseHeaders>[0];
    expect(responseHeaders(args)).toEqual({
      headers: { 'content-type': 'application/json', 'content-language': 'de', 'retry-after': '7' },
    });
  });
});
