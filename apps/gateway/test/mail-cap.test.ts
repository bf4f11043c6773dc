import { recipientKey } from '@accounts/api';
import { eq } from 'drizzle-orm';
import { mailOutbox, mailSends } from '@accounts/db';
import { httpClient, testDrivers, uniqueEmail } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer, type Server } from '../src/server.js';
import { registration, SEED_HEADERS, startGateway, STRONG, type Gateway } from './support/gateway.js';

describe.each(testDrivers())('the cap on mail to one address, over HTTP on %s', (driver) => {
  // The documented defaults (RATE_LIMIT_MAIL_PER_EMAIL 3, MAIL_RECIPIENT_CAP 10, 10 minutes);
  // the per-client limits are out of the way, so only the cap decides.
  let gw: Gateway;
  let other: { server: Server; client: ReturnType<typeof httpClient> };
  beforeAll(async () => {
    const env = {
      TRUST_PROXY: '127.0.0.1',
      MAIL_POLL_MS: '0',
      RATE_LIMIT_FORGOT_PASSWORD: '1000',
      RATE_LIMIT_RESEND_VERIFICATION: '1000',
    };
    gw = await startGateway(driver, env);
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
        (await client.form('/users/forgot_password', { email }, { headers: { 'x-forwarded-for': '198.51.100.8' } }))
          .status,
      );
    expect(answers).toEqual([202, 202, 202, 202]);
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
  it('refuses a notice ceiling below the links’ share at start-up, naming it', () => {
    expect(loadConfig({}).MAIL_RECIPIENT_CAP).toBe(10);
    expect(() => loadConfig({ RATE_LIMIT_MAIL_PER_EMAIL: '5', MAIL_RECIPIENT_CAP: '4' })).toThrow(
      /MAIL_RECIPIENT_CAP="4": must be at least RATE_LIMIT_MAIL_PER_EMAIL \(5\), or 0 for no ceiling/,
    );
    expect(loadConfig({ RATE_LIMIT_MAIL_PER_EMAIL: '50', MAIL_RECIPIENT_CAP: '0' }).MAIL_RECIPIENT_CAP).toBe(0);
  });
});
