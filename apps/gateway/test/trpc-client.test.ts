import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { PROBLEM_STATUS, trpcCodeOf, type AppRouter, type ProblemCode } from '@accounts/api';
import { testDrivers } from '@accounts/testing';
import { message } from '@accounts/validators';
import { createTRPCClient, createTRPCUntypedClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, uniqueEmail, type Gateway } from './support/gateway.js';

// Every host name resolves to the test server, so a client can address any realm by its URL.
const lookup = ((_host, opts, cb) =>
  opts?.all
    ? (cb as (e: null, a: LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
    : cb(null, '127.0.0.1', 4)) as LookupFunction;
const anyHostToLocal = new Agent({ connect: { lookup } });

type Rewrite = (init: RequestInit) => RequestInit;

/** A real tRPC client on the running gateway; `rewrite` alters the request the way a broken or hostile client would. */
function clientFor(
  gw: Gateway,
  opts: { host?: string; headers?: Record<string, string>; rewrite?: Rewrite; batch?: boolean } = {},
) {
  const url = `http://${opts.host ?? 'localhost'}:${gw.port}/trpc`;
  const fetch = ((input: string, init: RequestInit = {}) =>
    undiciFetch(input, {
      ...(opts.rewrite ? opts.rewrite(init) : init),
      dispatcher: anyHostToLocal,
    } as never)) as unknown as typeof globalThis.fetch;
  const link = (opts.batch ? httpBatchLink : httpLink)({ url, fetch, headers: opts.headers });
  return {
    typed: createTRPCClient<AppRouter>({ links: [link] }),
    untyped: createTRPCUntypedClient<AppRouter>({ links: [link] }),
  };
}

/** The TRPCClientError a call failed with. */
async function failure(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  return err as TRPCClientError<AppRouter>;
}

/** The one error shape: data.code is the tRPC code of the status, data.problem the service's problem. */
function expectProblem(err: TRPCClientError<AppRouter>, code: ProblemCode) {
  const status = PROBLEM_STATUS[code];
  const trpcCode = trpcCodeOf(status);
  expect(err.data).toMatchObject({
    code: trpcCode,
    httpStatus: status,
    problem: { type: 'about:blank', status, code, title: expect.any(String) },
  });
  expect(err.shape?.code).toBe(TRPC_ERROR_CODES_BY_KEY[trpcCode]);
  expect(err.message).toBe(err.data!.problem.title);
  return err.data!.problem;
}

describe.each(testDrivers())('a tRPC client reads every /trpc error in one shape on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { RATE_LIMIT_REGISTER: '4', TRUSTED_ORIGINS: 'https://trusted.example' });
  });
  afterAll(() => gw.close());

  it('an unknown realm (decided from the host before any procedure)', async () => {
    const { typed } = clientFor(gw, { host: 'nope.localhost', headers: { 'accept-language': 'de' } });
    const problem = expectProblem(await failure(typed.account.settings.query()), 'realm_not_found');
    // Refusals made before a procedure are rendered in the caller's language like the others.
    expect(problem.title).toBe(message('realm_not_found', 'de'));
  });

  it('a cross-origin write', async () => {
    const { typed } = clientFor(gw, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expectProblem(await failure(typed.account.signOut.mutate()), 'cross_origin');
  });

  it('a body that is not JSON by its declared type', async () => {
    const { typed } = clientFor(gw, { rewrite: (init) => ({ ...init, headers: { 'content-type': 'text/plain' } }) });
    expectProblem(
      await failure(typed.account.signIn.mutate({ email: 'a@example.com', password: 'x' })),
      'unsupported_media_type_json',
    );
  });

  it('a body over the size limit', async () => {
    const { typed } = clientFor(gw);
    const name = 'n'.repeat(20 * 1024);
    expectProblem(await failure(typed.account.register.mutate({ ...registration(), name })), 'payload_too_large');
  });

  it('a body that does not parse', async () => {
    const { typed } = clientFor(gw, { rewrite: (init) => ({ ...init, body: '{"email":' }) });
    expectProblem(
      await failure(typed.account.signIn.mutate({ email: 'a@example.com', password: 'x' })),
      'invalid_body',
    );
  });

  it('a batch (batching is off) and an unknown procedure', async () => {
    const batched = clientFor(gw, { batch: true });
    expectProblem(await failure(batched.typed.account.settings.query()), 'invalid_body');
    expectProblem(await failure(clientFor(gw).untyped.query('account.nothing')), 'not_found');
    // No procedure named at all, with or without a query string.
    for (const url of ['/trpc', '/trpc?batch=1', '/trpc/']) {
      const res = await gw.send('GET', url);
      expect(res.status, url).toBe(404);
      expect(res.json.error.data, url).toMatchObject({ code: 'NOT_FOUND', problem: { code: 'not_found' } });
    }
  });

  it('a mutation called as a query', async () => {
    expectProblem(
      await failure(clientFor(gw).untyped.query('account.signIn', { email: 'a@example.com', password: 'x' })),
      'method_not_allowed',
    );
  });

  it('HEAD: 405 with the problem in the headers it may carry, no body', async () => {
    const res = await gw.send('HEAD', '/trpc/account.settings');
    expect(res.status).toBe(405);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('field errors keep their codes and parameters', async () => {
    const { typed } = clientFor(gw);
    const problem = expectProblem(
      await failure(typed.account.register.mutate({ name: '', email: 'nope', password: 'short', password2: 'other' })),
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { field: 'name', code: 'required', message: message('required', 'en') },
      { field: 'email', code: 'invalid_email', message: message('invalid_email', 'en') },
      {
        field: 'password',
        code: 'password_too_short',
        message: message('password_too_short', 'en', { min: 15 }),
        params: { min: 15 },
      },
      { field: 'password2', code: 'password_mismatch', message: message('password_mismatch', 'en') },
    ]);
  });

  it('a check that needs the request (the password resembles the realm) is a field error like the others', async () => {
    const { typed } = clientFor(gw, { host: 'acme.localhost' });
    // Hard to guess (10^11.6) until the realm's own word is known (10^9.8).
    const password = 'acme inc forever';
    const problem = expectProblem(
      await failure(typed.account.register.mutate({ ...registration(), password, password2: password })),
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { field: 'password', code: 'password_too_similar', message: message('password_too_similar', 'en') },
    ]);
  });

  // The field-error tests above made two registration calls: the limit of 4 is reached here.
  it('unauthenticated, a conflict and a rate limit with its wait', async () => {
    const { typed } = clientFor(gw, { host: 'acme.localhost' });
    expectProblem(await failure(typed.account.me.query()), 'unauthenticated');
    const email = uniqueEmail('conflict');
    await typed.account.register.mutate(registration(email));
    const taken = expectProblem(await failure(typed.account.register.mutate(registration(email))), 'email_taken');
    expect(taken.errors?.map((e) => [e.field, e.code])).toEqual([['email', 'email_taken']]);
    const limited = expectProblem(await failure(typed.account.register.mutate(registration())), 'rate_limited');
    expect(limited.retryAfter).toBeGreaterThan(0);
  });
});
