import { eq, sql } from 'drizzle-orm';
import { accountTokens, mailOutbox, realms, users } from '@accounts/db';
import { testDrivers, uniqueEmail } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openedPayload, registration, startGateway, STRONG, STRONG2, type Gateway } from './support/gateway.js';
import { startSmtp, tokenOf, type TestSmtp } from './support/smtp.js';

const STRONG3 = 'copper meadow whistles under rain';

describe.each(testDrivers())('mail over HTTP with a real SMTP server, on %s', (driver) => {
  let gw: Gateway;
  let smtp: TestSmtp;
  let client = 0;
  const from = (ip = `198.51.100.${++client % 250}`) => ({ 'x-forwarded-for': ip });
  beforeAll(async () => {
    smtp = await startSmtp();
    gw = await startGateway(driver, {
      TRUST_PROXY: '127.0.0.1',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Acme Accounts <accounts@example.com>',
      MAIL_POLL_MS: '50',
      MAIL_RETRY_BASE_SECONDS: '1',
      MAIL_MAX_ATTEMPTS: '3',
      RATE_LIMIT_FORGOT_PASSWORD: '1000',
      RATE_LIMIT_MAIL_PER_EMAIL: '1000',
      MAIL_RECIPIENT_CAP: '1000',
      RATE_LIMIT_RESEND_VERIFICATION: '1000',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await smtp?.close();
  });

  const post = (url: string, body: Record<string, string>, headers: Record<string, string> = {}, host?: string) =>
    gw.form(url, body, { headers: { ...from(), ...headers }, host });
  const signUp = async (host?: string, headers: Record<string, string> = {}) => {
    const email = uniqueEmail('smtp');
    const res = await post('/users/register', registration(email), headers, host);
    expect(res.status).toBe(201);
    // None in a realm that signs in only confirmed addresses (no session starts there).
    const device = [res.headers['set-cookie'] ?? []]
      .flat()
      .find((c) => c.startsWith('known_device='))
      ?.split(';')[0];
    return { email, cookie: res.cookie!, device: device!, json: res.json };
  };
  const mailTo = (email: string, subject: RegExp) =>
    smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject));
  /** Changes the signed-in account's password from STRONG to STRONG2. */
  const changePassword = (cookie: string) =>
    post(
      '/users/change_password',
      { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
      { cookie },
    );

  it("mails a reset link in the account's language (not the asker's), with text and HTML, on the realm origin; the link resets once and signs the browser out", async () => {
    const { email, cookie, device } = await signUp('acme.localhost', { 'accept-language': 'de-DE,de;q=0.9' });
    const asked = await post('/users/forgot_password', { email }, { 'accept-language': 'fr' }, 'acme.localhost');
    expect(asked.status).toBe(202);
    expect(asked.json).toEqual({ ok: true });
    const mail = await mailTo(email, /zurücksetzen/);
    expect(mail.from).toBe('accounts@example.com');
    expect(mail.subject).toContain('Acme Inc');
    expect(mail.language).toBe('de');
    // The origin comes from configuration (PORT's default, 3000), not from the port the request reached.
    expect(mail.link).toMatch(new RegExp(`^http://acme\\.localhost:3000/reset-password\\?token=[A-Za-z0-9_-]{43}$`));
    expect(mail.html).toContain(`href="${mail.link}"`);
    expect(mail.text).toContain('Hallo Test User');
    const token = tokenOf(mail);

    // Reset in the browser that is signed in: it ends up signed out, and no browser stays known.
    const reset = await post(
      '/users/reset_password',
      { token, new_password: STRONG2, confirm_password: STRONG2 },
      { cookie: `${cookie}; ${device}` },
      'acme.localhost',
    );
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ ok: true, sessionsRevoked: 1, email });
    const set = [reset.headers['set-cookie'] ?? []].flat();
    expect(set).toEqual([expect.stringMatching(/^session=; .*Expires=Thu, 01 Jan 1970/)]);
    expect((await gw.send('GET', '/users/me', { host: 'acme.localhost', headers: { cookie } })).json.code).toBe(
      'unauthenticated',
    );
    expect((await post('/users/login', { email, password: STRONG }, {}, 'acme.localhost')).json.errors[0].code).toBe(
      'credentials_invalid',
    );
    // The new password signs in; the old known-device cookie is not the owner's any more: a new one is added in front.
    const login = await post('/users/login', { email, password: STRONG2 }, { cookie: device }, 'acme.localhost');
    expect(login.status).toBe(200);
    expect(login.json.user).toMatchObject({ email, realm: 'acme', emailVerified: true });
    const remembered = [login.headers['set-cookie'] ?? []]
      .flat()
      .find((c) => c.startsWith('known_device='))!
      .split(';')[0]!;
    expect(remembered).toMatch(new RegExp(`^known_device=[A-Za-z0-9_-]{43}\\.${device.split('=')[1]}$`));
    await mailTo(email, /Neue Anmeldung|New sign-in/);
    const again = await post(
      '/users/reset_password',
      { token, new_password: STRONG3, confirm_password: STRONG3 },
      {},
      'acme.localhost',
    );
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({
      code: 'reset_token_invalid',
      errors: [{ field: 'token', code: 'reset_token_invalid' }],
    });
    // The owner is told, with the address it came from and the way back.
    const notice = await mailTo(email, /zurückgesetzt/);
    expect(notice.text).toMatch(/from the address|von der Adresse/);
    expect(notice.text).toContain('http://acme.localhost:3000/forgot-password');
    // Delivered: the payload (the link) is gone from the outbox.
    const rows = await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    await expect
      .poll(async () =>
        (await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).every(
          (r) => r.sentAt !== null,
        ),
      )
      .toBe(true);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const sent = await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    expect(sent.every((r) => JSON.stringify(r.payload) === '{}')).toBe(true);
    // Never a token in the log.
    expect(gw.logs.join('').includes(token)).toBe(false);
  });

  it('answers forgot_password alike for known and unknown addresses: status, body and headers', async () => {
    const { email } = await signUp();
    const strip = (h: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => !['date', 'content-length'].includes(k)));
    const known = await post('/users/forgot_password', { email });
    const unknown = await post('/users/forgot_password', { email: uniqueEmail('nobody') });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(strip(unknown.headers)).toEqual(strip(known.headers));
    // Their times are the benchmark's to measure (its enumeration probe), with enough samples.
    // The unknown address got nothing.
    expect(smtp.mails.filter((m) => m.to.some((t) => t.startsWith('nobody.'))).length).toBe(0);
  });

  it('verifies the address with the mailed link; the link works once; a realm can require it for sign-in', async () => {
    await gw.db.db.update(realms).set({ requireVerifiedEmail: true }).where(eq(realms.slug, 'acme'));
    try {
      const { email, cookie, json } = await signUp('acme.localhost');
      // Registration there starts no session: the address is to be confirmed first.
      expect(cookie).toBeUndefined();
      expect(json.emailVerificationRequired).toBe(true);
      const verifiedAt = async () =>
        (await gw.db.db.select().from(users).where(eq(users.email, email)))[0]!.emailVerifiedAt;
      const mail = await mailTo(email, /Confirm your email/);
      expect(mail.link).toMatch(new RegExp('^http://acme\\.localhost:3000/verify-email\\?token='));
      const refused = await post('/users/login', { email, password: STRONG }, {}, 'acme.localhost');
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe('email_not_verified');
      expect(
        (await post('/users/login', { email, password: 'not the password at all' }, {}, 'acme.localhost')).status,
      ).toBe(422);
      expect(await verifiedAt()).toBeNull();
      const ok = await post('/users/verify_email', { token: tokenOf(mail) }, {}, 'acme.localhost');
      expect(ok.status).toBe(200);
      expect(ok.json).toEqual({ ok: true, emailVerified: true });
      expect(await verifiedAt()).not.toBeNull();
      expect((await post('/users/login', { email, password: STRONG }, {}, 'acme.localhost')).status).toBe(200);
      const reused = await post('/users/verify_email', { token: tokenOf(mail) }, {}, 'acme.localhost');
      expect(reused.status).toBe(400);
      expect(reused.json.code).toBe('verify_token_invalid');
      expect((await post('/users/verify_email', { token: '' })).json).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'token', code: 'required' }],
      });
    } finally {
      await gw.db.db.update(realms).set({ requireVerifiedEmail: false }).where(eq(realms.slug, 'acme'));
    }
  });

  it('sends the verification link again on request, and nothing once verified', async () => {
    const { email, cookie } = await signUp();
    const first = await mailTo(email, /Confirm your email/);
    expect((await post('/users/resend_verification', {})).status).toBe(401);
    const res = await post('/users/resend_verification', {}, { cookie });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ ok: true, alreadyVerified: false });
    const second = await smtp.waitFor((m) => m.to.includes(email) && /Confirm/.test(m.subject) && m !== first);
    expect((await post('/users/verify_email', { token: tokenOf(first) })).status).toBe(400);
    expect((await post('/users/verify_email', { token: tokenOf(second) })).status).toBe(200);
    expect((await post('/users/resend_verification', {}, { cookie })).json).toEqual({
      ok: true,
      alreadyVerified: true,
    });
  });

  it('refuses expired, replaced and outdated reset links with one code', async () => {
    const { email, cookie } = await signUp();
    const attempt = (token: string) =>
      post('/users/reset_password', { token, new_password: STRONG3, confirm_password: STRONG3 });
    await post('/users/forgot_password', { email });
    const expired = tokenOf(await mailTo(email, /Reset your password/));
    await gw.db.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.purpose, 'reset_password'));
    expect((await attempt(expired)).json.code).toBe('reset_token_invalid');
    await post('/users/forgot_password', { email });
    const older = tokenOf(
      await smtp.waitFor((m) => m.to.includes(email) && /Reset your/.test(m.subject) && tokenOf(m) !== expired),
    );
    await post('/users/forgot_password', { email });
    const newer = tokenOf(
      await smtp.waitFor(
        (m) => m.to.includes(email) && /Reset your/.test(m.subject) && ![expired, older].includes(tokenOf(m)),
      ),
    );
    expect((await attempt(older)).json.code).toBe('reset_token_invalid');
    expect((await changePassword(cookie)).status).toBe(200);
    const stale = await attempt(newer);
    expect(stale.status).toBe(400);
    expect(stale.json.code).toBe('reset_token_invalid');
    expect((await attempt('A'.repeat(43))).json.code).toBe('reset_token_invalid');
    const fields = await post('/users/reset_password', {
      token: newer,
      new_password: 'short',
      confirm_password: 'different',
    });
    expect(fields.status).toBe(422);
    expect(fields.json.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`).sort()).toEqual([
      'confirm_password:password_mismatch',
      'new_password:password_too_short',
    ]);
  });

  it('tells the owner of a sign-in from a client that is not a known device, and of a password change', async () => {
    const { email, cookie } = await signUp();
    // Notices go to a confirmed address only.
    expect(
      (await post('/users/verify_email', { token: tokenOf(await mailTo(email, /Confirm your email/)) })).status,
    ).toBe(200);
    const login = await post(
      '/users/login',
      { email, password: STRONG },
      { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', ...from('203.0.113.50') },
    );
    expect(login.status).toBe(200);
    const mail = await mailTo(email, /New sign-in/);
    expect(mail.text).toContain('203.0.113.50');
    // The device as the parser names it, not the header's text.
    expect(mail.text).toContain('Firefox 140 on Linux');
    expect(mail.text).not.toContain('Mozilla');
    expect((await changePassword(cookie)).status).toBe(200);
    expect((await mailTo(email, /was changed/)).text).toContain('/forgot-password');
  });

  it('retries a delivery the SMTP server refuses, with back-off, and delivers it once', async () => {
    const { email } = await signUp();
    await mailTo(email, /Confirm/);
    smtp.refuseNext(2);
    const t = performance.now();
    const res = await post('/users/forgot_password', { email });
    expect(res.status).toBe(202);
    const mail = await mailTo(email, /Reset your password/);
    expect(performance.now() - t).toBeGreaterThan(900); // 1 s back-off after the first refusal at least
    expect(smtp.mails.filter((m) => m.to.includes(email) && /Reset your/.test(m.subject))).toEqual([mail]);
    expect(gw.logs.some((l) => l.includes('mail delivery failed; will retry'))).toBe(true);
  });

  it('gives a mail up after the last attempt, and logs it', async () => {
    const { email } = await signUp();
    await mailTo(email, /Confirm/);
    smtp.refuseNext(3);
    await post('/users/forgot_password', { email });
    await expect
      .poll(
        async () =>
          (await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).find(
            (r) => r.template === 'reset_password',
          )?.failedAt ?? null,
        { timeout: 20_000, interval: 200 },
      )
      .not.toBeNull();
    const [row] = (await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).filter(
      (r) => r.template === 'reset_password',
    );
    expect(row).toMatchObject({ attempts: 3, payload: {} });
    expect(row!.lastError).toContain('451');
    expect(gw.logs.some((l) => l.includes('mail given up after the last attempt'))).toBe(true);
  });
});

describe('mail limits over HTTP', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '0',
      RATE_LIMIT_FORGOT_PASSWORD: '3',
      RATE_LIMIT_MAIL_PER_EMAIL: '2',
      RATE_LIMIT_RESEND_VERIFICATION: '10',
    });
  });
  afterAll(() => gw?.close());

  it('limits reset requests per address (429) and mails per email, the registration mail included (202, nothing more queued)', async () => {
    const email = uniqueEmail('limits');
    const reg = await gw.form('/users/register', registration(email), {
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(
        await gw.form('/users/forgot_password', { email }, { headers: { 'x-forwarded-for': '203.0.113.1' } }),
      );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 429]);
    expect(answers[3]!.json).toMatchObject({ code: 'rate_limited' });
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThan(0);
    // Per email (2): the registration's verification link and the first reset link; nothing more.
    const queued = async () =>
      (await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).map((r) => r.template).sort();
    expect(await queued()).toEqual(['reset_password', 'verify_email']);
    // From another address the answer stays 202, but nothing more is queued for this email.
    expect(
      (await gw.form('/users/forgot_password', { email }, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status,
    ).toBe(202);
    expect(await queued()).toEqual(['reset_password', 'verify_email']);
    // A signed-in owner asking for a new verification link is told of the per-email limit.
    const resend = await gw.form(
      '/users/resend_verification',
      {},
      { headers: { cookie: reg.cookie!, 'x-forwarded-for': '203.0.113.3' } },
    );
    expect(resend.status).toBe(429);
    expect(resend.json.code).toBe('rate_limited');
  });

  it('keeps a queued link sealed: the outbox holds no usable link or token until the sender opens it', async () => {
    const quiet = await startGateway('pglite', { MAIL_POLL_MS: '0' });
    try {
      const email = uniqueEmail('sealed');
      await quiet.form('/users/register', registration(email));
      const [row] = await quiet.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
      const stored = JSON.stringify(row!.payload);
      expect(stored).not.toMatch(/token=|"link"/);
      expect(stored).toMatch(/"sealedLink":"v1\./);
      // Only SECRET_KEY opens it, and only for its recipient.
      const opened = openedPayload(row) as { link: string };
      expect(opened.link).toMatch(/^http:\/\/localhost:3000\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
      expect(() => openedPayload({ ...row!, recipient: 'someone-else@example.com' })).toThrow();
    } finally {
      await quiet.close();
    }
  });

  it('writes each mail to the log with its whole link when SMTP_URL is not set (a developer machine), and says so at start', async () => {
    const local = await startGateway('pglite', { MAIL_POLL_MS: '50' });
    try {
      expect(local.logs.some((l) => l.includes('mails are written to this log with their links whole'))).toBe(true);
      const email = uniqueEmail('whole');
      await local.form('/users/register', registration(email));
      const line = () => local.logs.find((l) => l.includes('SMTP_URL not set: logged, not sent') && l.includes(email));
      await expect.poll(line, { timeout: 10_000 }).toBeTruthy();
      // The link works: the walk-through (register, confirm, reset) can be finished from the log.
      const link = JSON.parse(line()!).mail.link as string;
      expect(link).toMatch(/^http:\/\/localhost:\d+\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
      const token = new URL(link).searchParams.get('token')!;
      expect((await local.form('/users/verify_email', { token })).status).toBe(200);
    } finally {
      await local.close();
    }
    // Production logs mail only when told to on purpose (config.test.ts: it refuses to start otherwise).
    const dev = await startGateway('pglite', { MAIL_POLL_MS: '50', MAIL_TRANSPORT: 'log', NODE_ENV: 'production' });
    try {
      const email = uniqueEmail('logged');
      await dev.form('/users/register', registration(email));
      await expect
        .poll(() => dev.logs.find((l) => l.includes('SMTP_URL not set: logged, not sent') && l.includes(email)), {
          timeout: 10_000,
        })
        .toBeTruthy();
      const line = JSON.parse(
        dev.logs.find((l) => l.includes('SMTP_URL not set: logged, not sent') && l.includes(email))!,
      );
      expect(line.mail).toMatchObject({ to: email, template: 'verify_email' });
      expect(line.mail.link).toMatch(/^http:\/\/localhost:\d+\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
    } finally {
      await dev.close();
    }
  });
});
