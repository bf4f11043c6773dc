import { setTimeout as sleep } from 'node:timers/promises';
import { accountEvents } from '@accounts/db';
import { testDrivers } from '@accounts/db/testing';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userByEmail } from '../support/accounts.js';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from '../support/gateway.js';

// Password guessing against one account from many client addresses (the proxy is trusted,
// so X-Forwarded-For stands for the address): the per-account limit stops it, also when the
// guesses arrive all at once, and the owner gets in again once the window has passed.
// The scenarios use separate accounts and run side by side, so their waits overlap.
const MAX = 5;
const WINDOW_S = 2;

describe.each(testDrivers())('password guessing on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { TRUST_PROXY: 'true', ACCOUNT_MAX_FAILURES: String(MAX), ACCOUNT_FAILURE_WINDOW_SECONDS: String(WINDOW_S) });
  });
  afterAll(() => gw?.close());

  const from = (i: number) => ({ headers: { 'x-forwarded-for': `203.0.113.${i % 250}, 10.0.0.1` } });
  const failures = async (email: string) => {
    const user = await userByEmail(gw.db.db, email);
    const rows = await gw.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, user!.id), inArray(accountEvents.type, ['sign_in_failed', 'password_change_failed'])));
    return rows.length;
  };
  /**
   * Guesses one by one until refused: with what a burst already checked, the account must lock
   * after exactly MAX checked passwords (claims that refused each other in a burst do not count).
   */
  const guessUntilLocked = async (guess: (i: number) => Promise<{ status: number }>) => {
    let checked = 0;
    for (let i = 0; i <= MAX; i++) {
      const { status } = await guess(100 + i);
      if (status === 429) break;
      expect(status).toBe(422);
      checked++;
    }
    return checked;
  };
  /** Waits out the failure window (the last guess plus a margin). */
  const windowPasses = () => sleep(WINDOW_S * 1000 + 300);

  it.concurrent('stops one-by-one guesses from many addresses after the limit, then lets the owner in after the window', async () => {
    const email = uniqueEmail('victim');
    expect((await gw.form('/users/register', registration(email))).status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await gw.form('/users/login', { email, password: `guess number ${i} of many` }, from(i))).status);
    expect(statuses).toEqual([...Array(MAX).fill(422), ...Array(12 - MAX).fill(429)]);
    const locked = await gw.form('/users/login', { email, password: STRONG }, from(99));
    expect(locked.status).toBe(429);
    expect(locked.json).toMatchObject({ code: 'too_many_attempts', status: 429 });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_S);
    expect(await failures(email)).toBe(MAX);
    await windowPasses();
    expect((await gw.form('/users/login', { email, password: STRONG }, from(100))).status).toBe(200);
  });

  it.concurrent('does not let a burst of concurrent guesses overshoot the limit', async () => {
    const email = uniqueEmail('burst');
    expect((await gw.form('/users/register', registration(email))).status).toBe(201);
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => gw.form('/users/login', { email, password: `concurrent guess ${i}` }, from(i))));
    const statuses = burst.map((r) => r.status);
    expect(statuses.every((s) => s === 422 || s === 429), String(statuses)).toBe(true);
    // Each 422 is a password actually checked: no more of them than the limit allows.
    const checked = statuses.filter((s) => s === 422).length;
    expect(checked).toBeLessThanOrEqual(MAX);
    expect(await failures(email)).toBe(checked);
    const more = await guessUntilLocked((i) => gw.form('/users/login', { email, password: `late guess ${i}` }, from(i)));
    expect(checked + more).toBe(MAX);
    expect((await gw.form('/users/login', { email, password: STRONG }, from(3))).status).toBe(429);
    await windowPasses();
    expect((await gw.form('/users/login', { email, password: STRONG }, from(7))).status).toBe(200);
  });

  it.concurrent('counts wrong current passwords on password change against the same limit, also in a burst', async () => {
    const email = uniqueEmail('changer');
    const reg = await gw.form('/users/register', registration(email));
    const change = (i: number) =>
      gw.form('/users/change_password', { current_password: `wrong current ${i}`, new_password: STRONG2, confirm_password: STRONG2 }, { headers: { cookie: reg.cookie!, ...from(i).headers } });
    const statuses = (await Promise.all(Array.from({ length: 30 }, (_, i) => change(i)))).map((r) => r.status);
    expect(statuses.every((s) => s === 422 || s === 429), String(statuses)).toBe(true);
    const checked = statuses.filter((s) => s === 422).length;
    expect(checked).toBeLessThanOrEqual(MAX);
    expect(await failures(email)).toBe(checked);
    expect(checked + (await guessUntilLocked(change))).toBe(MAX);
    // The lock covers sign-in too: it is one counter per account.
    expect((await gw.form('/users/login', { email, password: STRONG }, from(1))).status).toBe(429);
    await windowPasses();
    const ok = await gw.form('/users/change_password', { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 }, { headers: { cookie: reg.cookie! } });
    expect(ok.status).toBe(200);
  });
});
