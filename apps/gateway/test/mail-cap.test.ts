import { recipientKey } from '@accounts/api';
import { eq, sql } from 'drizzle-orm';
import { mailOutbox, mailSends } from '@accounts/db';
import { httpClient, testDrivers, uniqueEmail } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, mailCapFrom } from '../src/config.js';
import { createServer, type Server } from '../src/server.js';
import { registration, SEED_HEADERS, startGateway, STRONG, type Gateway } from './support/gateway.js';

describe.each(testDrivers())('the cap on mail to one address, over HTTP on %s', (driver) => {
  // The documented defaults (RATE_LIMIT_MAIL_PER_EMAIL 3 links asked for, MAIL_RECIPIENT_CAP 10
  // mails others cause, 10 minutes); the per-client limits are out of the way, so only the cap decides.
  let gw: Gateway;
  let other: { server: Server; client: ReturnType<typeof httpClient> };
  beforeAll(async () => {
    const env = {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '0',
      RATE_LIMIT_FORGOT_PASSWORD: '1000',
      RATE_LIMIT_RESEND_VERIFICATION: '1000',
    };
    gw = await startGateway(driver, { ...env, SERVE_WEB: 'true' });
    // A second instance on the same database, with limiters of its own (in its memory).
    const config = loadConfig({
      PORT: '0',
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      SERVE_WEB: 'false',
      RATE_LIMIT_REGISTER: '1000',
      RATE_LIMIT_SIGN_IN: '1000',
      ...env,
    });
    const server = await createServer(config, { database: gw.db, hasher: gw.hasher });
    await server.start();
    other = {
      server,
      client: httpClient((server.app.server.address() as { port: number }).port, { formHeaders: SEED_HEADERS }),
    };
  });
  afterAll(async () => {
    await other?.client.close();
    await other?.server.stop();
    await gw?.close();
  });

  const sends = async (email: string) =>
    (
      await gw.db.db
        .select()
        .from(mailSends)
        .where(eq(mailSends.recipientKey, recipientKey(email)))
    ).length;
  const queued = async (email: string) =>
    (await gw.db.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).map((r) => r.template).sort();

  it('register/delete cycles get no more than 3 verification mails to one address', async () => {
    const email = uniqueEmail('cycle');
    for (let i = 0; i < 5; i++) {
      const reg = await gw.form('/users/register', registration(email));
      expect(reg.status).toBe(201);
      const gone = await gw.form(
        '/users/delete_account',
        { current_password: STRONG },
        { headers: { cookie: reg.cookie! } },
      );
      expect(gone.status).toBe(200);
    }
    expect(await sends(email)).toBe(3);
    // Registration itself still succeeds, without the mail.
    const again = await gw.form('/users/register', registration(email));
    expect(again.status).toBe(201);
    expect(again.json.user.emailVerified).toBe(false);
    expect(await queued(email)).toEqual([]);
    expect(await sends(email)).toBe(3);
  });

  it('two instances share one count; over it a reset answers 202 alike, a new verification link 429 with Retry-After', async () => {
    const email = uniqueEmail('shared');
    const reg = await gw.form('/users/register', registration(email), {
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    const answers = [];
    for (const client of [other.client, gw, other.client, gw])
      answers.push(
        await client.form('/users/forgot_password', { email }, { headers: { 'x-forwarded-for': '198.51.100.8' } }),
      );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    // The last two were held back: still 202, with when the address may ask again.
    expect(answers.map((a) => a.json.retryAfter === undefined)).toEqual([true, true, false, false]);
    // The registration's link and two reset links: 3, whichever instance was asked.
    expect(await queued(email)).toEqual(['reset_password', 'reset_password', 'verify_email']);
    const resend = await other.client.form('/users/resend_verification', {}, { headers: { cookie: reg.cookie! } });
    expect(resend.status).toBe(429);
    expect(resend.json).toMatchObject({ code: 'rate_limited' });
    const retryAfter = Number(resend.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // The log says what was held back, never to whom.
    const held = gw.logs.filter((l) => l.includes('mail not queued: its address reached the mail cap'));
    expect(held.length).toBeGreaterThanOrEqual(2);
    expect(held.some((l) => l.includes(email))).toBe(false);
  });

  it('an address no account has is held back exactly like one an account has: the same 202, the same page without scripts', async () => {
    const known = uniqueEmail('known');
    const unknown = uniqueEmail('unknown');
    expect((await gw.form('/users/register', registration(known))).status).toBe(201);
    // The registration's link out of the window: both addresses start from nothing counted.
    await gw.db.db.execute(
      sql`update mail_sends set created_at = now() - interval '601 seconds' where recipient_key = ${recipientKey(known)}`,
    );
    const ask = async (email: string) => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await gw.form('/users/forgot_password', { email }));
      return answers.map((a) => ({
        status: a.status,
        contentType: a.headers['content-type'],
        headers: Object.keys(a.headers).sort(),
        // In minutes: the two were asked a moment apart.
        body: { ...a.json, ...(a.json.retryAfter && { retryAfter: Math.ceil(a.json.retryAfter / 60) }) },
      }));
    };
    const fromKnown = await ask(known);
    expect(fromKnown.map((a) => [a.status, a.body])).toEqual([
      [202, { ok: true }],
      [202, { ok: true }],
      [202, { ok: true }],
      [202, { ok: true, retryAfter: 10 }],
    ]);
    expect(await ask(unknown)).toEqual(fromKnown);
    expect(await queued(known)).toEqual(['reset_password', 'reset_password', 'reset_password', 'verify_email']);
    expect(await queued(unknown)).toEqual([]);

    // The page's form posted without scripts says the same for both, with when to ask again.
    const page = async (email: string) => {
      const res = await gw.send('POST', '/forgot-password', {
        headers: {
          accept: 'text/html',
          'content-type': 'application/x-www-form-urlencoded',
          origin: `http://localhost:${gw.port}`,
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ _form: 'forgotPassword', email }).toString(),
      });
      expect(res.status).toBe(200);
      return res.text;
    };
    for (const email of [known, unknown]) {
      const html = await page(email);
      expect(html).toContain(
        `If an account exists for ${email}, we have already sent a link to it. Check your spam folder if nothing arrives. You can ask for another link in about 10 minutes.`,
      );
    }
  });

  it('refuses an address whose local part has a leading, trailing or doubled dot', async () => {
    for (const email of ['.ada@example.com', 'ada.@example.com', 'ada..lovelace@example.com']) {
      const res = await gw.form('/users/register', registration(email));
      expect(res.status, email).toBe(422);
      expect(res.json).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'email', code: 'invalid_email' }],
      });
    }
    const fr = await gw.form('/users/register', registration('ada..lovelace@example.com'), {
      headers: { 'accept-language': 'fr' },
    });
    expect(fr.status).toBe(422);
    expect(fr.json.errors).toEqual([
      { field: 'email', code: 'invalid_email', message: 'Saisissez une adresse e-mail valide.' },
    ]);
    // Where an account may already hold such an address, it is still taken (answered as any address).
    expect((await gw.form('/users/forgot_password', { email: 'ada..lovelace@example.com' })).status).toBe(202);
    expect(
      (await gw.form('/users/login', { email: 'ada..lovelace@example.com', password: 'not the password at all' })).json,
    ).toMatchObject({ code: 'validation_failed', errors: [{ field: 'password', code: 'credentials_invalid' }] });
  });
});

describe('mail cap settings', () => {
  it('takes the two caps from the environment, each on its own (neither bounds the other)', () => {
    expect(mailCapFrom(loadConfig({}))).toEqual({ requested: 3, caused: 10, windowMs: 600_000 });
    expect(
      mailCapFrom(
        loadConfig({ RATE_LIMIT_MAIL_PER_EMAIL: '5', MAIL_RECIPIENT_CAP: '4', RATE_LIMIT_WINDOW_SECONDS: '3600' }),
      ),
    ).toEqual({ requested: 5, caused: 4, windowMs: 3_600_000 });
    expect(mailCapFrom(loadConfig({ RATE_LIMIT_MAIL_PER_EMAIL: '0', MAIL_RECIPIENT_CAP: '0' }))).toMatchObject({
      requested: 0,
      caused: 0,
    });
  });
});
