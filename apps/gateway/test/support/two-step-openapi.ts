import { parseOtpauth } from '@accounts/testing';
import { expect } from 'vitest';
import { STRONG } from './gateway.js';
import { expectPostRefusals, type Get, type Post } from './openapi.js';
import { authenticator, pendingCookieOf } from './two-step.js';

/**
 * Answers every documented status of the two-step routes (but 503) through the OpenAPI test's
 * checked `post` and `get`, so each is held to the document: set-up, turning on and off, new
 * recovery codes, the sign-in's `401 second_factor_required` for browsers and programs, and its
 * second step. The gateway runs with the per-address limits of sign-in and change_password at 6,
 * and 20 signed-in writes per account.
 */
export async function exerciseTwoStepRoutes({
  post,
  get,
  signedUp,
}: {
  post: Post;
  get: Get;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  const { email, cookie } = await signedUp();
  const session = { cookie };
  // Turning on before a set-up; a set-up; a wrong code; the right one.
  expect((await post('/users/totp/enable', { code: '123456', current_password: STRONG }, session)).json.code).toBe(
    'totp_not_set_up',
  );
  const setup = await post('/users/totp/setup', {}, session);
  expect(setup.status).toBe(200);
  const app = authenticator(parseOtpauth(setup.json.uri).secret);
  expect(
    (await post('/users/totp/enable', { code: app.wrong(), current_password: STRONG }, session)).json.errors[0].code,
  ).toBe('code_incorrect');
  const on = await post('/users/totp/enable', { code: await app.next(), current_password: STRONG }, session);
  expect(on.status).toBe(200);
  const recoveryCodes = on.json.recoveryCodes as string[];
  expect((await get('/users/me', session)).json.twoStep).toEqual({
    enabled: true,
    methods: ['totp', 'recovery_code'],
    recoveryCodesLeft: 10,
  });
  // On: set-up and turning on again are conflicts.
  expect((await post('/users/totp/setup', {}, session)).json.code).toBe('two_step_on');
  expect((await post('/users/totp/enable', { code: app.peek(), current_password: STRONG }, session)).json.code).toBe(
    'two_step_on',
  );

  // The sign-in's two steps: a browser (the pending cookie), then a program (the pending token).
  const browser = { 'x-forwarded-for': '203.0.113.140' };
  const asked = await post('/users/login', { email, password: STRONG }, browser);
  expect(asked.json).toMatchObject({ status: 401, code: 'second_factor_required', methods: ['totp', 'recovery_code'] });
  const pending = { ...browser, cookie: pendingCookieOf(asked)! };
  expect((await post('/users/login/second_factor', { code: app.wrong() }, pending)).status).toBe(422);
  expect((await post('/users/login/second_factor', { code: await app.next() }, pending)).status).toBe(200);
  const program = { 'x-forwarded-for': '203.0.113.141', 'x-session-delivery': 'token' };
  const token = (await post('/users/login', { email, password: STRONG }, program)).json.pendingToken as string;
  expect(token).toBeTruthy();
  const done = await post('/users/login/second_factor', { code: recoveryCodes[0]!, pending_token: token }, program);
  expect(done.json.session.token).toBeTruthy();
  // Held to the document with the rest of the body: a recovery code was used up.
  expect(done.json.recoveryCodeUsed).toBe(true);
  // Used up, or none at all: 401 sign_in_expired.
  expect(
    (await post('/users/login/second_factor', { code: recoveryCodes[1]!, pending_token: token }, program)).json.code,
  ).toBe('sign_in_expired');
  // Wrong codes: the tries left once two remain, then 429 too_many_codes (an address of its own:
  // the password and five codes are its six sign-in calls).
  const guesser = { 'x-forwarded-for': '203.0.113.146' };
  const guessing = {
    ...guesser,
    cookie: pendingCookieOf(await post('/users/login', { email, password: STRONG }, guesser))!,
  };
  const wrong = [];
  for (let i = 0; i < 4; i++)
    wrong.push((await post('/users/login/second_factor', { code: app.wrong() }, guessing)).json);
  expect(wrong.map((p) => [p.status, p.attemptsLeft])).toEqual([
    [422, undefined],
    [422, undefined],
    [422, 2],
    [422, 1],
  ]);
  const ended = await post('/users/login/second_factor', { code: app.wrong() }, guessing);
  expect(ended.json).toMatchObject({ status: 429, code: 'too_many_codes' });
  expect(Number(ended.headers['retry-after'])).toBeGreaterThan(0);

  // New recovery codes; a wrong password.
  expect((await post('/users/recovery_codes', { current_password: STRONG }, session)).json.recoveryCodes).toHaveLength(
    10,
  );
  expect((await post('/users/recovery_codes', { current_password: 'not the password at all' }, session)).status).toBe(
    422,
  );
  // Turning off: a wrong code, then a right one; off, both are conflicts (the app is off, and so is the step).
  expect((await post('/users/totp/disable', { current_password: STRONG, code: app.wrong() }, session)).status).toBe(
    422,
  );
  expect(
    (await post('/users/totp/disable', { current_password: STRONG, code: await app.next() }, session)).json,
  ).toEqual({ ok: true });
  expect((await post('/users/totp/disable', { current_password: STRONG, code: '123456' }, session)).json.code).toBe(
    'totp_off',
  );
  expect((await post('/users/recovery_codes', { current_password: STRONG }, session)).json.code).toBe('two_step_off');

  // The refusals every form route shares (a fresh account: the ones above used up most of its writes).
  const other = await signedUp();
  await expectPostRefusals(
    post,
    {
      '/users/totp/setup': {},
      '/users/totp/enable': { code: '123456', current_password: STRONG },
      '/users/totp/disable': { current_password: STRONG, code: '123456' },
      '/users/recovery_codes': { current_password: STRONG },
    },
    { cookie: other.cookie, signedIn: true },
  );
  await expectPostRefusals(post, { '/users/login/second_factor': { code: '123456' } }, { cookie: other.cookie });

  // Limits: seven calls from one address where six are allowed (each refused for its state
  // before any password check), and a set-up past the account's writes.
  for (const [url, fields, address] of [
    ['/users/totp/enable', { code: '123456', current_password: STRONG }, '203.0.113.142'],
    ['/users/totp/disable', { current_password: STRONG, code: '123456' }, '203.0.113.143'],
    ['/users/recovery_codes', { current_password: STRONG }, '203.0.113.144'],
    ['/users/login/second_factor', { code: '123456' }, '203.0.113.145'],
  ] as const) {
    const { cookie: own } = await signedUp();
    const one = { 'x-forwarded-for': address, cookie: own };
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await post(url, fields, one));
    expect(
      answers.slice(0, 6).every((a) => [401, 409].includes(a.status)),
      url,
    ).toBe(true);
    expect(answers.at(-1)!.json.code, url).toBe('rate_limited');
  }
  const flooded = await signedUp();
  let writes = 0;
  while ((await post('/users/totp/setup', {}, { cookie: flooded.cookie })).status === 200)
    expect(++writes).toBeLessThan(100);
  expect((await post('/users/totp/setup', {}, { cookie: flooded.cookie })).json.code).toBe('rate_limited');
}
