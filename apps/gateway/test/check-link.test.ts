import { eq, sql } from 'drizzle-orm';
import { accountTokens } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedToken } from './support/email-openapi.js';
import { registration, startGateway, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';

// A mailed link checked before it is used: POST /users/check_link for programs, and the pages
// behind the links, rendered on the server, that open straight on a link that no longer works.

const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const inputValue = (html: string, name: string) =>
  new RegExp(`<input [^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1] ??
  new RegExp(`<input [^>]*value="([^"]*)"[^>]*name="${name}"`).exec(html)?.[1];

describe.each(testDrivers())('checking a mailed link over HTTP, on %s', (driver) => {
  let gw: Gateway;
  let client = 0;
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++client % 250}` });
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: '127.0.0.1', SERVE_WEB: 'true', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  const check = async (purpose: string, token: string) => {
    const res = await gw.form('/users/check_link', { purpose, token }, { headers: from() });
    expect(res.status).toBe(200);
    return res.json as { state: string; email?: string };
  };
  const page = async (path: string) => {
    const res = await gw.send('GET', path, { headers: { accept: 'text/html', ...from() } });
    expect(res.status, path).toBe(200);
    return res.text;
  };
  const postPage = (path: string, fields: Record<string, string>) =>
    gw.send('POST', path, {
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        origin: `http://localhost:${gw.port}`,
        'sec-fetch-site': 'same-origin',
        ...from(),
      },
      body: new URLSearchParams(fields).toString(),
    });
  const signUp = async () => {
    const email = uniqueEmail('check');
    expect((await gw.form('/users/register', registration(email), { headers: from() })).status).toBe(201);
    expect((await gw.form('/users/forgot_password', { email }, { headers: from() })).status).toBe(202);
    return { email, reset: await queuedToken(gw.db.db, email, 'reset_password') };
  };

  it('checking and opening a link use nothing up; once used, its page says so at once with the address filled in', async () => {
    const { email, reset } = await signUp();
    const before = await gw.db.db
      .select()
      .from(accountTokens)
      .where(eq(accountTokens.tokenHash, digest(reset)));
    expect(await check('reset_password', reset)).toEqual({ state: 'usable' });
    // The page rendered without scripts asks for the new password.
    const fresh = await page(`/reset-password?token=${reset}`);
    expect(fresh).toContain('name="new_password"');
    expect(fresh).not.toContain('This link was already used');
    expect(await check('reset_password', reset)).toEqual({ state: 'usable' });
    expect(
      await gw.db.db
        .select()
        .from(accountTokens)
        .where(eq(accountTokens.tokenHash, digest(reset))),
    ).toEqual(before);

    // Reset without scripts: the sign-in page follows, the address in it, filled in on the server.
    const done = await postPage(`/reset-password?token=${reset}`, {
      _form: 'resetPassword',
      token: reset,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/login?email=${encodeURIComponent(email)}`);
    expect(inputValue(await page(done.headers.location as string), 'email')).toBe(email);

    expect(await check('reset_password', reset)).toEqual({ state: 'used', email });
    const used = await page(`/reset-password?token=${reset}`);
    expect(used).toContain('This link was already used, or a newer one was sent since.');
    expect(used).not.toContain('name="new_password"');
    expect(inputValue(used, 'email')).toBe(email);
    // Its "Send a new link" form works without scripts, on the same page.
    const sent = await postPage(`/reset-password?token=${reset}`, { _form: 'forgotPassword', email });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain(`If an account exists for ${email}, we have sent a link to it.`);
    // Nothing of it was logged: not the token, not the address.
    expect(gw.logs.join('\n')).not.toContain(reset);
  });

  it('an expired or unknown link says which at once, an unknown one with nothing filled in', async () => {
    const { email, reset } = await signUp();
    await gw.db.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.tokenHash, digest(reset)));
    expect(await check('reset_password', reset)).toEqual({ state: 'expired', email });
    const expired = await page(`/reset-password?token=${reset}`);
    expect(expired).toContain('This link has expired.');
    expect(inputValue(expired, 'email')).toBe(email);

    const nobody = 'B'.repeat(43);
    expect(await check('reset_password', nobody)).toEqual({ state: 'unknown' });
    const unknown = await page(`/reset-password?token=${nobody}`);
    expect(unknown).toContain('This link is not valid.');
    expect(inputValue(unknown, 'email')).toBe('');
    expect(await check('verify_email', nobody)).toEqual({ state: 'unknown' });
    expect(await page(`/verify-email?token=${nobody}`)).toContain('This link is not valid.');
    expect(await page(`/confirm-email-change?token=${nobody}`)).toContain('This link is not valid.');
  });

  it('refuses bad input with a documented problem, never a 500', async () => {
    const bodies: Record<string, string>[] = [
      {},
      { purpose: 'reset_password' },
      { purpose: 'sign_in', token: 'A'.repeat(43) },
    ];
    for (const body of bodies) {
      const res = await gw.form('/users/check_link', body, { headers: from() });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.code).toBe('validation_failed');
    }
    expect(await check('reset_password', 'x'.repeat(5000))).toEqual({ state: 'unknown' });
  });
});

describe('the limit on checking mailed links', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { RATE_LIMIT_LINK_CHECK: '3', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw?.close());

  it('counts checks per address in a bucket of their own (RATE_LIMIT_LINK_CHECK): the fourth is 429 with Retry-After', async () => {
    const body = { purpose: 'verify_email', token: 'A'.repeat(43) };
    for (let i = 0; i < 3; i++) expect((await gw.form('/users/check_link', body)).status).toBe(200);
    const refused = await gw.form('/users/check_link', body);
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The password checks keep their own count: a reset with a bad token is still answered as one.
    const reset = await gw.form('/users/reset_password', {
      token: 'A'.repeat(43),
      password: STRONG2,
      password2: STRONG2,
    });
    expect(reset.status).not.toBe(429);
  });
});
