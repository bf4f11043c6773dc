import { SoftAuthenticator } from '@accounts/testing';
import { expect } from 'vitest';
import { STRONG } from './gateway.js';
import { expectJsonPostRefusals, type Get, type Post, type PostJson } from './openapi.js';
import { originOf } from './passkeys.js';
import { pendingCookieOf } from './two-step.js';

/**
 * Answers every documented status of the passkey routes (but 503) through the OpenAPI test's
 * checked `postJson` and `get`, so each is held to the document: adding, listing, renaming and
 * removing a passkey, a sign-in with it alone, the second step of a password sign-in done
 * with it, and a signed-in session's second factor confirmed with it. The gateway runs with the per-address limits of sign-in, passkey options and
 * change_password at 6, and 20 signed-in writes per account and per address.
 */
export async function exercisePasskeyRoutes({
  post,
  postJson,
  get,
  signedUp,
}: {
  post: Post;
  postJson: PostJson;
  get: Get;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  const { email, cookie } = await signedUp();
  const session = { cookie };
  const authenticator = new SoftAuthenticator();

  // Adding one: options, a refused answer (another origin), a replayed one, the right one.
  const options = await postJson('/users/passkeys/register/options', {}, session);
  expect(options.status).toBe(200);
  expect(
    (
      await postJson(
        '/users/passkeys/register',
        { response: authenticator.create(options.json, 'http://evil.example') },
        session,
      )
    ).json.code,
  ).toBe('passkey_rejected');
  const fresh = (await postJson('/users/passkeys/register/options', {}, session)).json;
  const made = authenticator.create(fresh, originOf());
  const added = await postJson('/users/passkeys/register', { response: made }, session);
  expect(added.status).toBe(201);
  expect(added.json.recoveryCodes).toHaveLength(10);
  expect((await postJson('/users/passkeys/register', { response: made }, session)).json.code).toBe(
    'passkey_challenge_invalid',
  );
  const id = added.json.passkey.id as string;
  expect((await get('/users/passkeys', session)).json.passkeys).toHaveLength(1);
  expect((await get('/users/passkeys')).json.code).toBe('unauthenticated');
  expect((await get('/users/passkeys', session, 'nope.localhost')).json.code).toBe('realm_not_found');
  expect((await get('/users/me', session)).json.twoStep).toEqual({
    enabled: true,
    methods: ['passkey', 'recovery_code'],
    recoveryCodesLeft: 10,
  });
  // Renamed; an unknown id.
  expect((await postJson('/users/passkeys/rename', { passkey_id: id, name: 'Phone' }, session)).json).toEqual({
    ok: true,
  });
  expect(
    (
      await postJson(
        '/users/passkeys/rename',
        { passkey_id: '00000000-0000-0000-0000-000000000000', name: 'x' },
        session,
      )
    ).json.code,
  ).toBe('not_found');

  // A sign-in with it alone: a refused assertion, a replayed one, and a browser's and a program's.
  const signInOptions = async () => (await postJson('/users/passkeys/login/options', {})).json;
  expect(
    (
      await postJson('/users/passkeys/login', {
        response: authenticator.get(await signInOptions(), 'http://evil.example'),
      })
    ).json.code,
  ).toBe('passkey_rejected');
  const assertion = authenticator.get(await signInOptions(), originOf());
  const browser = await postJson('/users/passkeys/login', { response: assertion });
  expect(browser.status).toBe(200);
  expect(browser.cookie).toBeTruthy();
  expect((await postJson('/users/passkeys/login', { response: assertion })).json.code).toBe(
    'passkey_challenge_invalid',
  );
  const program = await postJson(
    '/users/passkeys/login',
    { response: authenticator.get(await signInOptions(), originOf()) },
    { 'x-session-delivery': 'token' },
  );
  expect(program.json.session.token).toBeTruthy();
  // A session that signed in with the passkey proves the password before adding another.
  const passkeySession = { cookie: browser.cookie! };
  expect((await postJson('/users/passkeys/register/options', {}, passkeySession)).json.errors[0].code).toBe(
    'password_recheck_required',
  );

  // The second step of a password sign-in, for a browser (the pending cookie) and a program (the token).
  const asked = await post('/users/login', { email, password: STRONG }, { 'x-forwarded-for': '203.0.113.150' });
  expect(asked.json).toMatchObject({ code: 'second_factor_required', methods: ['passkey', 'recovery_code'] });
  const pending = { cookie: pendingCookieOf(asked)! };
  const stepOptions = async (headers: Record<string, string>, fields: Record<string, string> = {}) => {
    const res = await postJson('/users/passkeys/second_factor/options', fields, headers);
    expect(res.status).toBe(200);
    return res.json;
  };
  expect(
    (
      await postJson(
        '/users/passkeys/second_factor',
        { response: authenticator.get(await stepOptions(pending), 'http://evil.example') },
        pending,
      )
    ).json.code,
  ).toBe('passkey_rejected');
  const stepAnswer = authenticator.get(await stepOptions(pending), originOf());
  expect((await postJson('/users/passkeys/second_factor', { response: stepAnswer }, pending)).status).toBe(200);
  const tokenClient = { 'x-forwarded-for': '203.0.113.151', 'x-session-delivery': 'token' };
  const pending_token = (await post('/users/login', { email, password: STRONG }, tokenClient)).json
    .pendingToken as string;
  const done = await postJson(
    '/users/passkeys/second_factor',
    { response: authenticator.get(await stepOptions(tokenClient, { pending_token }), originOf()), pending_token },
    tokenClient,
  );
  expect(done.json.session.token).toBeTruthy();
  // Used up, or none at all: 401 sign_in_expired; malformed: 422.
  expect((await postJson('/users/passkeys/second_factor/options', { pending_token }, tokenClient)).json.code).toBe(
    'sign_in_expired',
  );
  expect((await postJson('/users/passkeys/second_factor', { response: stepAnswer, pending_token })).json.code).toBe(
    'sign_in_expired',
  );
  expect((await postJson('/users/passkeys/second_factor/options', { pending_token: 7 })).json.code).toBe(
    'validation_failed',
  );
  expect((await postJson('/users/passkeys/second_factor', { response: {} })).json.code).toBe('validation_failed');

  // The refusals every JSON route shares.
  const other = await signedUp();
  await expectJsonPostRefusals(
    postJson,
    {
      '/users/passkeys/register/options': { current_password: STRONG },
      '/users/passkeys/register': { response: made },
      '/users/passkeys/rename': { passkey_id: id, name: 'x' },
      '/users/passkeys/remove': { passkey_id: id, current_password: STRONG },
    },
    { cookie: other.cookie, signedIn: true },
  );
  await expectJsonPostRefusals(
    postJson,
    {
      '/users/passkeys/login/options': {},
      '/users/passkeys/login': { response: assertion },
      '/users/passkeys/second_factor/options': { pending_token },
      '/users/passkeys/second_factor': { response: stepAnswer, pending_token },
    },
    { cookie: other.cookie },
  );

  // Confirming a second factor with a passkey, for a signed-in session asked for one: a fresh
  // account with a passkey (its writes counted apart from the first one's).
  const confirmer = await signedUp();
  const own = { cookie: confirmer.cookie };
  const key = new SoftAuthenticator();
  const keyOptions = (await postJson('/users/passkeys/register/options', {}, own)).json;
  expect(
    (await postJson('/users/passkeys/register', { response: key.create(keyOptions, originOf()) }, own)).status,
  ).toBe(201);
  const recheckOptions = async () => {
    const res = await postJson('/users/passkeys/recheck/options', {}, own);
    expect(res.status).toBe(200);
    return res.json;
  };
  const confirmed = key.get(await recheckOptions(), originOf());
  expect((await postJson('/users/passkeys/recheck', { response: confirmed }, own)).json).toEqual({ ok: true });
  expect((await postJson('/users/passkeys/recheck', { response: confirmed }, own)).json.code).toBe(
    'passkey_challenge_invalid',
  );
  expect((await postJson('/users/passkeys/recheck/options', {}, { cookie: other.cookie })).json.code).toBe(
    'two_step_off',
  );
  await expectJsonPostRefusals(
    postJson,
    { '/users/passkeys/recheck/options': {}, '/users/passkeys/recheck': { response: confirmed } },
    { cookie: confirmer.cookie, signedIn: true },
  );
  // Five refused assertions (each from its own address: the lockout counts the session), then 429.
  for (let i = 0; i < 5; i++)
    expect(
      (
        await postJson(
          '/users/passkeys/recheck',
          { response: key.get(await recheckOptions(), 'http://evil.example') },
          own,
        )
      ).json.code,
    ).toBe('passkey_rejected');
  expect(
    (await postJson('/users/passkeys/recheck', { response: key.get(await recheckOptions(), originOf()) }, own)).json
      .code,
  ).toBe('too_many_attempts');

  // The lockout: five refused assertions from one address (the options from others), then 429.
  const guesser = { 'x-forwarded-for': '203.0.113.153' };
  for (let i = 0; i < 5; i++)
    expect(
      (
        await postJson(
          '/users/passkeys/login',
          { response: authenticator.get(await signInOptions(), 'http://evil.example') },
          guesser,
        )
      ).status,
    ).toBe(422);
  expect(
    (
      await postJson(
        '/users/passkeys/login',
        { response: authenticator.get(await signInOptions(), originOf()) },
        guesser,
      )
    ).json.code,
  ).toBe('too_many_attempts');

  // Limits: seven calls from one address where six are allowed (passkey options, sign-in,
  // change_password), and twenty-one signed-in writes where twenty are.
  for (const [url, body, address] of [
    ['/users/passkeys/login/options', {}, '203.0.113.154'],
    ['/users/passkeys/login', { response: assertion }, '203.0.113.155'],
    ['/users/passkeys/second_factor/options', {}, '203.0.113.156'],
    ['/users/passkeys/second_factor', { response: stepAnswer }, '203.0.113.157'],
    ['/users/passkeys/register/options', { current_password: 'not the password at all' }, '203.0.113.158'],
    ['/users/passkeys/recheck/options', {}, '203.0.113.162'],
    ['/users/passkeys/recheck', { response: stepAnswer }, '203.0.113.163'],
    [
      '/users/passkeys/remove',
      { passkey_id: '00000000-0000-0000-0000-000000000000', current_password: STRONG },
      '203.0.113.159',
    ],
  ] as const) {
    const { cookie: own } = await signedUp();
    const one = { 'x-forwarded-for': address, cookie: own };
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await postJson(url, body, one));
    expect(answers.at(-1)!.json.code, url).toBe('rate_limited');
  }
  for (const [url, body, address] of [
    ['/users/passkeys/register', { response: made }, '203.0.113.160'],
    ['/users/passkeys/rename', { passkey_id: id, name: 'x' }, '203.0.113.161'],
  ] as const) {
    const { cookie: own } = await signedUp();
    const one = { 'x-forwarded-for': address, cookie: own };
    let writes = 0;
    while ((await postJson(url, body, one)).json?.code !== 'rate_limited') expect(++writes).toBeLessThan(100);
  }

  // Removing it: a wrong password, then the right one; the step is off.
  expect(
    (await postJson('/users/passkeys/remove', { passkey_id: id, current_password: 'not the password at all' }, session))
      .json.errors[0].code,
  ).toBe('password_incorrect');
  expect(
    (await postJson('/users/passkeys/remove', { passkey_id: id, current_password: STRONG }, session)).json,
  ).toEqual({
    ok: true,
  });
  expect((await get('/users/me', session)).json.twoStep.enabled).toBe(false);
}
