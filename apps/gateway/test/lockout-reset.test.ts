import { testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedToken } from './support/email-openapi.js';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';

// A reset by the mailed link over real HTTP: it lifts the lockout its owner ran into with wrong
// passwords (the new password signs in from the same browser), while the per-address limits on
// asking for links and on sign-ins stay as they were.
describe.each(testDrivers())('a completed reset and the lockout over HTTP on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    // Mails stay queued (the test reads the link from the outbox).
    gw = await startGateway(driver, {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '0',
      RATE_LIMIT_FORGOT_PASSWORD: '3',
      RATE_LIMIT_SIGN_IN: '8',
    });
  });
  afterAll(() => gw?.close());

  it('lets the locked-out owner sign in with the new password from the same browser; the per-address limits stay', async () => {
    const email = uniqueEmail('reset-lock');
    const browser = { 'x-forwarded-for': '198.51.100.201' };
    expect((await gw.form('/users/register', registration(email), { headers: browser })).status).toBe(201);
    const login = (password: string) => gw.form('/users/login', { email, password }, { headers: browser });
    for (let i = 0; i < 5; i++) expect((await login(`not my password ${i}`)).status).toBe(422);
    const locked = await login(STRONG);
    expect(locked.json).toMatchObject({ status: 429, code: 'too_many_attempts' });

    const forgot = () => gw.form('/users/forgot_password', { email }, { headers: browser });
    for (let i = 0; i < 3; i++) expect((await forgot()).status).toBe(202);
    const token = await queuedToken(gw.db.db, email, 'reset_password');
    const reset = await gw.form(
      '/users/reset_password',
      { token, new_password: STRONG2, confirm_password: STRONG2 },
      { headers: browser },
    );
    expect(reset.status).toBe(200);

    const back = await login(STRONG2);
    expect(back.status).toBe(200);
    expect(back.cookie).toBeTruthy();
    // The address's limits are the limiter's, untouched by the reset: a fourth link is refused,
    // and its eighth sign-in call (five wrong, the refused one, the new password, this) is the last.
    const fourth = await forgot();
    expect(fourth.json).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(STRONG2)).status).toBe(200);
    expect((await login(STRONG2)).json).toMatchObject({ status: 429, code: 'rate_limited' });
  });
});
