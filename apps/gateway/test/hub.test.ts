import { eq } from 'drizzle-orm';
import { users } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';
import { turnOnTwoStep } from './support/two-step.js';

// What the account page reads of the account over HTTP: GET /users/me's `security`, and the
// suggestion of a second factor dismissed with the form route POST /users/dismiss_second_factor_suggestion.
describe.each(testDrivers())('the account page’s routes on %s', (driver) => {
  let gw: Gateway;
  let client = 0;
  // Each request from its own address, so that only the limit a test means applies.
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++client % 250}` });
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_ACCOUNT_WRITES: '5', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw.close());

  const signedUp = async () => {
    const email = uniqueEmail('hub');
    const res = await gw.form('/users/register', registration(email), { headers: from() });
    expect(res.status).toBe(201);
    return { email, cookie: res.cookie! };
  };
  const me = async (cookie: string) => {
    const res = await gw.send('GET', '/users/me', { headers: { cookie } });
    expect(res.status).toBe(200);
    return res.json as { security: { passwordChangedAt: string | null; suggestSecondFactor: boolean } };
  };
  const dismiss = (headers: Record<string, string>, body: string | Record<string, string> = {}) =>
    gw.form('/users/dismiss_second_factor_suggestion', body, { headers: { ...from(), ...headers } });

  it('GET /users/me says when the password was set (RFC 3339) and suggests a second factor to a new account', async () => {
    const { email, cookie } = await signedUp();
    const [row] = await gw.db.db.select().from(users).where(eq(users.email, email));
    const { security } = await me(cookie);
    expect(security).toEqual({ passwordChangedAt: row!.passwordChangedAt.toISOString(), suggestSecondFactor: true });
    // A change of password moves it.
    const changed = await gw.form(
      '/users/change_password',
      { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      { headers: { ...from(), cookie } },
    );
    expect(changed.status).toBe(200);
    const [after] = await gw.db.db.select().from(users).where(eq(users.email, email));
    expect((await me(changed.cookie!)).security.passwordChangedAt).toBe(after!.passwordChangedAt.toISOString());
    expect(after!.passwordChangedAt.getTime()).toBeGreaterThanOrEqual(row!.passwordChangedAt.getTime());
  });

  it('POST /users/dismiss_second_factor_suggestion (form-encoded) keeps it dismissed for the account, every session', async () => {
    const { email, cookie } = await signedUp();
    const other = await gw.form('/users/login', { email, password: STRONG }, { headers: from() });
    expect(other.status).toBe(200);
    // Extra fields are ignored, as on every form route.
    const res = await dismiss({ cookie }, { suggestion: 'anything' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual({ ok: true });
    expect((await me(cookie)).security.suggestSecondFactor).toBe(false);
    expect((await me(other.cookie!)).security.suggestSecondFactor).toBe(false);
    expect((await dismiss({ cookie: other.cookie! })).json).toEqual({ ok: true });
    const [row] = await gw.db.db.select().from(users).where(eq(users.email, email));
    expect(row!.secondFactorSuggestionDismissedAt).toBeInstanceOf(Date);
  });

  it('suggests nothing to an account with the authenticator app', async () => {
    const { cookie } = await signedUp();
    await turnOnTwoStep(gw, { ...from(), cookie });
    expect((await me(cookie)).security.suggestSecondFactor).toBe(false);
  });

  it('refuses without a session, from another site, a body it cannot read, and over the limit on writes: documented problems, nothing written', async () => {
    const { email, cookie } = await signedUp();
    const refused = (res: Awaited<ReturnType<typeof dismiss>>, status: number, code: string) => {
      expect({ status: res.status, code: res.json.code }).toEqual({ status, code });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    };
    refused(await dismiss({}), 401, 'unauthenticated');
    refused(
      await dismiss({ cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      403,
      'cross_origin',
    );
    refused(await dismiss({ cookie }, 'x=%FF'), 400, 'invalid_body');
    refused(await dismiss({ cookie, 'content-type': 'text/plain' }, 'x=1'), 415, 'unsupported_media_type');
    const [row] = await gw.db.db.select().from(users).where(eq(users.email, email));
    expect(row!.secondFactorSuggestionDismissedAt).toBeNull();
    // Five writes of the account a window: the sixth is refused, with when to try again.
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await dismiss({ cookie }));
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    refused(answers[5]!, 429, 'rate_limited');
    expect(answers[5]!.headers['retry-after']).toMatch(/^\d+$/);
  });
});
