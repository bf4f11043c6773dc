import { SoftAuthenticator, type Client } from '@accounts/testing';
import { expect } from 'vitest';
import type { Response } from './gateway.js';

// Passkeys over HTTP, for the tests: the JSON bodies of the /users/passkeys routes, and the
// ceremonies driven with the software authenticator of @accounts/testing (its own CBOR and
// ES256 code, not the service's WebAuthn library).

/** The origin of a realm's host as test gateways configure it (PUBLIC_PORT 3000, http). */
export const originOf = (host = 'localhost') => `http://${host}:3000`;

/** POSTs a JSON body (a value, or raw text as given) with `Content-Type: application/json`. */
export const postJson = (
  client: Pick<Client, 'send'>,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  host?: string,
): Promise<Response> =>
  client.send('POST', url, {
    host,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

/**
 * Adds a passkey made by `authenticator` to the signed-in account (`headers` carry its session,
 * whose password was proved within 5 minutes unless `current_password` is given).
 */
export async function addPasskey(
  client: Pick<Client, 'send'>,
  headers: Record<string, string>,
  opts: { host?: string; authenticator?: SoftAuthenticator; name?: string; current_password?: string } = {},
) {
  const authenticator = opts.authenticator ?? new SoftAuthenticator();
  const options = await postJson(
    client,
    '/users/passkeys/register/options',
    opts.current_password === undefined ? {} : { current_password: opts.current_password },
    headers,
    opts.host,
  );
  expect(options.status, options.text).toBe(200);
  const added = await postJson(
    client,
    '/users/passkeys/register',
    { response: authenticator.create(options.json, originOf(opts.host)), ...(opts.name ? { name: opts.name } : {}) },
    headers,
    opts.host,
  );
  expect(added.status, added.text).toBe(201);
  return {
    authenticator,
    options: options.json,
    passkey: added.json.passkey as { id: string; name: string },
    recoveryCodes: added.json.recoveryCodes as string[] | undefined,
  };
}

/** What navigator.credentials.get() is given (the options routes' JSON), as the authenticator reads it. */
export type AssertionOptions = Parameters<SoftAuthenticator['get']>[0];
/** What navigator.credentials.get() answers, as JSON. */
export type Assertion = ReturnType<SoftAuthenticator['get']>;

/** Options for a passkey sign-in, and the authenticator's answer to them (`make` varies how it answers). */
export async function signInAssertion(
  client: Pick<Client, 'send'>,
  authenticator: SoftAuthenticator,
  opts: {
    host?: string;
    headers?: Record<string, string>;
    make?: (options: AssertionOptions) => unknown;
  } = {},
) {
  const options = await postJson(client, '/users/passkeys/login/options', {}, opts.headers, opts.host);
  expect(options.status, options.text).toBe(200);
  // What `make` answers may be malformed on purpose; it is sent as it is.
  const response = (
    opts.make ? opts.make(options.json) : authenticator.get(options.json, originOf(opts.host))
  ) as Assertion;
  return { options: options.json, response };
}

/** A whole passkey sign-in: options, the assertion, POST /users/passkeys/login. */
export async function passkeySignIn(
  client: Pick<Client, 'send'>,
  authenticator: SoftAuthenticator,
  opts: Parameters<typeof signInAssertion>[2] = {},
) {
  const { options, response } = await signInAssertion(client, authenticator, opts);
  const res = await postJson(client, '/users/passkeys/login', { response }, opts.headers, opts.host);
  return { options, response, res };
}
