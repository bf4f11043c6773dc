import { desc, eq } from 'drizzle-orm';
import { mailOutbox, realms, type Database } from '@accounts/db';
import { expect } from 'vitest';
import { openedPayload, STRONG, STRONG2, uniqueEmail } from './gateway.js';
import { expectPostRefusals, type Post } from './openapi.js';

/** The token of the newest queued mail of a template to an address (the test gateway does not send). */
export async function queuedToken(db: Database, email: string, template: 'reset_password' | 'verify_email') {
  const rows = await db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email)).orderBy(desc(mailOutbox.id));
  const link = (openedPayload(rows.find((r) => r.template === template)) as { link?: string } | undefined)?.link;
  if (!link) throw new Error(`no queued ${template} mail to ${email}`);
  return new URL(link).searchParams.get('token')!;
}

/**
 * Answers every documented status of the mailed-link routes (but 503) through the OpenAPI
 * test's checked `post`: forgot_password, check_link, reset_password, verify_email, resend_verification, and
 * the sign-in refusal of an unverified account. The gateway runs with MAIL_POLL_MS=0 (mails stay
 * queued), the per-address limits of forgot_password and resend_verification at 6, change_password's at 6.
 */
export async function exerciseEmailRoutes({
  post,
  db,
  signedUp,
}: {
  post: Post;
  db: Database;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  const { email, cookie } = await signedUp();
  // Successes.
  expect((await post('/users/forgot_password', { email })).status).toBe(202);
  const reset = await queuedToken(db, email, 'reset_password');
  expect((await post('/users/check_link', { purpose: 'reset_password', token: reset })).json).toEqual({
    state: 'usable',
  });
  expect(
    (await post('/users/reset_password', { token: reset, new_password: STRONG2, confirm_password: STRONG2 })).status,
  ).toBe(200);
  expect(
    (await post('/users/reset_password', { token: reset, new_password: STRONG, confirm_password: STRONG })).json.code,
  ).toBe('reset_token_invalid');
  const other = await signedUp();
  expect((await post('/users/resend_verification', '', { cookie: other.cookie })).status).toBe(202);
  const verify = await queuedToken(db, other.email, 'verify_email');
  expect((await post('/users/verify_email', { token: verify })).status).toBe(200);
  expect((await post('/users/verify_email', { token: verify })).json.code).toBe('verify_token_invalid');
  // Field errors and sign-in.
  expect((await post('/users/forgot_password', { email: 'nope' })).json.code).toBe('validation_failed');
  expect(
    (await post('/users/reset_password', { token: reset, new_password: 'short', confirm_password: 'x' })).json.code,
  ).toBe('validation_failed');
  expect((await post('/users/verify_email', {})).json.code).toBe('validation_failed');
  expect((await post('/users/check_link', { purpose: 'reset_password', token: reset })).json).toEqual({
    state: 'used',
    email,
  });
  expect((await post('/users/check_link', { purpose: 'nope', token: '' })).json.code).toBe('validation_failed');
  expect((await post('/users/resend_verification', '')).json.code).toBe('unauthenticated');

  // The refusals every form route shares.
  const bodies: Record<string, Record<string, string>> = {
    '/users/forgot_password': { email: uniqueEmail('doc') },
    '/users/reset_password': { token: 'A'.repeat(43), new_password: STRONG2, confirm_password: STRONG2 },
    '/users/verify_email': { token: 'A'.repeat(43) },
    '/users/check_link': { purpose: 'verify_email', token: 'A'.repeat(43) },
    '/users/resend_verification': {},
  };
  await expectPostRefusals(post, bodies, { cookie });

  // Per-address limits: seven calls from one address where six are allowed.
  const one = { 'x-forwarded-for': '203.0.113.120' };
  for (const [url, fields, headers] of [
    ['/users/forgot_password', () => ({ email: uniqueEmail('limit') }), () => one],
    [
      '/users/reset_password',
      () => ({ token: 'A'.repeat(43), new_password: STRONG2, confirm_password: STRONG2 }),
      () => one,
    ],
    [
      '/users/check_link',
      () => ({ purpose: 'reset_password', token: 'A'.repeat(43) }),
      () => ({ 'x-forwarded-for': '203.0.113.121' }),
    ],
    ['/users/resend_verification', () => ({}), async () => ({ ...one, cookie: (await signedUp()).cookie })],
  ] as const) {
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await post(url, fields(), await headers()));
    expect(answers.at(-1)!.json.code, url).toBe('rate_limited');
  }

  // A realm that requires a confirmed address refuses an unconfirmed account's right password.
  await db.update(realms).set({ requireVerifiedEmail: true }).where(eq(realms.slug, 'default'));
  try {
    const fresh = await signedUp();
    const refused = await post('/users/login', { email: fresh.email, password: STRONG });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('email_not_verified');
  } finally {
    await db.update(realms).set({ requireVerifiedEmail: false }).where(eq(realms.slug, 'default'));
  }
}
