import { desc, eq, sql } from 'drizzle-orm';
import { mailOutbox, sessions, users, type Database } from '@accounts/db';
import { expect } from 'vitest';
import { openedPayload, registration, STRONG, STRONG2, uniqueEmail } from './gateway.js';
import { expectPostRefusals, type Get, type Post } from './openapi.js';

/** The token of the newest queued change-of-address link to an address (the OpenAPI test's gateway does not send). */
export async function queuedChangeToken(db: Database, address: string): Promise<string> {
  const rows = await db.select().from(mailOutbox).where(eq(mailOutbox.recipient, address)).orderBy(desc(mailOutbox.id));
  const link = (openedPayload(rows.find((r) => r.template === 'confirm_email_change')) as { link?: string } | undefined)
    ?.link;
  if (!link) throw new Error(`no queued confirm_email_change mail to ${address}`);
  return new URL(link).searchParams.get('token')!;
}

/**
 * Answers every documented status (but 503, and the ones named in openapi.test.ts) of the
 * change-of-address and data-export routes through the OpenAPI test's checked `post` and `get`.
 * The gateway runs with MAIL_POLL_MS=0 (mails stay queued), change_password's per-address limit at
 * 6 and the limit on an account's writes at 20.
 */
export async function exerciseAccountDataRoutes({
  post,
  get,
  db,
  signedUp,
}: {
  post: Post;
  get: Get;
  db: Database;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  // A change of address, asked for, looked at, cancelled, asked for again and confirmed.
  const { email, cookie } = await signedUp();
  const next = uniqueEmail('doc-next');
  expect((await get('/users/email_change', { cookie })).json).toEqual({ pending: null });
  expect((await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie })).status).toBe(
    202,
  );
  expect((await get('/users/email_change', { cookie })).json.pending.newEmail).toBe(next);
  expect((await get('/users/email_change')).json.code).toBe('unauthenticated');
  expect((await get('/users/email_change', { cookie }, 'nope.localhost')).json.code).toBe('realm_not_found');
  const cancelled = await queuedChangeToken(db, next);
  expect((await post('/users/cancel_email_change', {}, { cookie })).json).toEqual({ ok: true });
  expect((await post('/users/confirm_email_change', { token: cancelled })).json.code).toBe(
    'email_change_token_invalid',
  );
  await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie });
  const token = await queuedChangeToken(db, next);
  expect((await post('/users/confirm_email_change', { token }, { cookie })).json).toEqual({ ok: true, email: next });
  // Field errors: the same address, a wrong password; an empty token.
  expect(
    (await post('/users/change_email', { new_email: next, current_password: STRONG }, { cookie })).json.errors[0].code,
  ).toBe('email_unchanged');
  expect(
    (await post('/users/change_email', { new_email: email, current_password: STRONG2 }, { cookie })).json.errors[0]
      .code,
  ).toBe('password_incorrect');
  expect((await post('/users/confirm_email_change', { token: '' })).json.code).toBe('validation_failed');
  // The race: another account took the address before the link was used.
  const racer = await signedUp();
  const taken = uniqueEmail('doc-race');
  await post('/users/change_email', { new_email: taken, current_password: STRONG }, { cookie: racer.cookie });
  const lost = await queuedChangeToken(db, taken);
  expect((await post('/users/register', registration(taken))).status).toBe(201);
  expect((await post('/users/confirm_email_change', { token: lost })).json.code).toBe('email_taken');

  // The copy: with a fresh password, and with the password given.
  const download = await post('/users/export', {}, { cookie });
  expect(download.status).toBe(200);
  expect(download.json.account.email).toBe(next);
  expect((await post('/users/export', { current_password: STRONG }, { cookie })).status).toBe(200);
  // A session whose password was proved more than five minutes ago: the password is checked.
  const [owner] = await db.select().from(users).where(eq(users.email, next));
  await db
    .update(sessions)
    .set({ passwordCheckedAt: sql`now() - interval '6 minutes'` })
    .where(eq(sessions.userId, owner!.id));
  expect((await post('/users/export', { current_password: STRONG2 }, { cookie })).json.errors[0].code).toBe(
    'password_incorrect',
  );
  expect((await post('/users/export', {})).json.code).toBe('unauthenticated');
  expect((await post('/users/export', {}, { cookie }, 'nope.localhost')).json.code).toBe('realm_not_found');

  // The refusals every form route shares.
  const fresh = await signedUp();
  await expectPostRefusals(
    post,
    {
      '/users/change_email': { new_email: uniqueEmail('doc'), current_password: STRONG },
      '/users/export': { current_password: STRONG },
      '/users/cancel_email_change': {},
    },
    { cookie: fresh.cookie, signedIn: true },
  );
  await expectPostRefusals(
    post,
    { '/users/confirm_email_change': { token: 'A'.repeat(43) } },
    { cookie: fresh.cookie },
  );
  expect((await post('/users/cancel_email_change', {})).json.code).toBe('unauthenticated');

  // Per-address limits (the limit of a password check, 6): seven calls from one address.
  for (const [url, fields] of [
    ['/users/change_email', () => ({ new_email: uniqueEmail('doc-limit'), current_password: STRONG })],
    ['/users/export', () => ({ current_password: STRONG })],
  ] as const) {
    const one = { 'x-forwarded-for': `203.0.113.${url.length}` };
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await post(url, fields(), { ...one, cookie: (await signedUp()).cookie }));
    expect(answers.at(-1)!.json.code, url).toBe('rate_limited');
  }
  // The limit on an account's writes (20): cancelling is one.
  let writes = 0;
  while ((await post('/users/cancel_email_change', {}, { cookie: fresh.cookie })).status === 200)
    expect(++writes).toBeLessThan(100);
  expect((await post('/users/cancel_email_change', {}, { cookie: fresh.cookie })).json.code).toBe('rate_limited');
}
