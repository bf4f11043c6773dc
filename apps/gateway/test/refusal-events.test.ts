import { and, eq } from 'drizzle-orm';
import { accountEvents, users } from '@accounts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from './support/gateway.js';

// Refused attempts leave an attributable record: an account event with the realm, the client's
// address, the account where known and the request id, bounded per client so a flood cannot
// flood the table; the owner sees blocked sign-ins of their account on the activity page.

describe('refusals recorded as security events', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { RATE_LIMIT_SIGN_IN: '3', SERVE_WEB: 'true' });
  });
  afterAll(() => gw.close());

  /** The events of a type, once the answer's after-work has recorded them. */
  async function eventsOf(type: string, atLeast = 1) {
    for (let i = 0; i < 100; i++) {
      const rows = await gw.db.db.select().from(accountEvents).where(eq(accountEvents.type, type));
      if (rows.length >= atLeast) return rows;
      await new Promise((r) => setTimeout(r, 50));
    }
    return gw.db.db.select().from(accountEvents).where(eq(accountEvents.type, type));
  }

  it('records a cross-origin write refused, with the address and request id, at most 10 per client', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await gw.form('/users/register', registration(), { headers: { origin: 'http://evil.example' } });
      expect(res.status).toBe(403);
    }
    const rows = await eventsOf('cross_origin_refused', 10);
    await new Promise((r) => setTimeout(r, 300));
    const settled = await gw.db.db.select().from(accountEvents).where(eq(accountEvents.type, 'cross_origin_refused'));
    expect(settled).toHaveLength(10);
    for (const row of rows) {
      expect(row.clientIp).toBe('127.0.0.1');
      expect(row.requestId).toBeTruthy();
      expect(row.userId).toBeNull();
    }
  });

  it('records rate limiting, of a form route and of a page posted without scripts alike', async () => {
    const email = uniqueEmail('refused-rate');
    await gw.form('/users/register', registration(email));
    let limited = 0;
    for (let i = 0; i < 4; i++) {
      const res = await gw.form('/users/login', { email, password: STRONG2 });
      if (res.status === 429) limited++;
    }
    expect(limited).toBeGreaterThan(0);
    const page = await gw.send('POST', '/login', {
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        origin: `http://localhost:${gw.port}`,
      },
      body: new URLSearchParams({ _form: 'signIn', email, password: STRONG2 }).toString(),
    });
    expect(page.status).toBe(429);
    const rows = await eventsOf('rate_limited', limited + 1);
    expect(rows.length).toBeGreaterThanOrEqual(limited + 1);
  });

  it('records a mailed link or a session token that does not work', async () => {
    const res = await gw.form('/users/reset_password', {
      token: 'A'.repeat(43),
      new_password: STRONG,
      confirm_password: STRONG,
    });
    expect(res.status).toBe(400);
    const me = await gw.send('GET', '/users/me', { headers: { cookie: `session=${'B'.repeat(43)}` } });
    expect(me.status).toBe(401);
    // Nobody signed in asking who is: no attempt at anything, nothing recorded for it.
    const before = (await eventsOf('token_invalid', 2)).length;
    expect(before).toBe(2);
    expect((await gw.send('GET', '/users/me')).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(await gw.db.db.select().from(accountEvents).where(eq(accountEvents.type, 'token_invalid'))).toHaveLength(
      before,
    );
  });

  it('shows the owner the sign-ins blocked on their account', async () => {
    const other = await startGateway('pglite');
    try {
      const email = uniqueEmail('refused-blocked');
      const reg = await other.form('/users/register', registration(email));
      for (let i = 0; i < 6; i++) await other.form('/users/login', { email, password: STRONG2 });
      const [user] = await other.db.db.select().from(users).where(eq(users.email, email));
      const blocked = await other.db.db
        .select()
        .from(accountEvents)
        .where(and(eq(accountEvents.userId, user!.id), eq(accountEvents.type, 'sign_in_blocked')));
      expect(blocked.length).toBeGreaterThan(0);
      const activity = await other.send('GET', '/users/activity', { headers: { cookie: reg.cookie! } });
      expect(activity.status).toBe(200);
      const types = (activity.json.events as { type: string; failed: boolean }[]).filter(
        (e) => e.type === 'sign_in_blocked',
      );
      expect(types.length).toBeGreaterThan(0);
      expect(types.every((e) => e.failed)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
