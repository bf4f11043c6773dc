import { eq, sql } from 'drizzle-orm';
import { accountEvents, accountTokens, users } from '@accounts/db';
import { STRONG2, testDrivers } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../src/records/tokens.js';
import { problemOf, useHarness } from './harness.js';
import { mailCaller, signUp, tokenFrom } from './email-harness.js';

describe.each(testDrivers())('checking a mailed link on %s', (driver) => {
  const h = useHarness(driver, { mailCap: { requested: 0, caused: 0, windowMs: 600_000 } });

  const rowOf = async (token: string) =>
    (
      await h.db.db
        .select()
        .from(accountTokens)
        .where(eq(accountTokens.tokenHash, hashToken(token)))
    )[0]!;
  const eventsOf = async (userId: string) =>
    (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).length;

  it('answers usable for a live link and uses nothing up, however often it is asked', async () => {
    const { user, email } = await signUp(h);
    await mailCaller(h).email.forgotPassword({ email });
    const token = await tokenFrom(h.db.db, email, 'reset_password');
    const before = await rowOf(token);
    const events = await eventsOf(user.id);
    for (let i = 0; i < 3; i++)
      expect(await mailCaller(h).email.checkLink({ purpose: 'reset_password', token })).toEqual({ state: 'usable' });
    expect(await rowOf(token)).toEqual(before);
    expect(await eventsOf(user.id)).toBe(events);
    // The link still works after being checked.
    await expect(
      mailCaller(h).email.resetPassword({ token, new_password: STRONG2, confirm_password: STRONG2 }),
    ).resolves.toMatchObject({ ok: true, email });
    // Used now: said so, with the address to ask a new link for.
    expect(await mailCaller(h).email.checkLink({ purpose: 'reset_password', token })).toEqual({ state: 'used', email });
  });

  it('tells used, replaced, expired, outlived and unknown links apart, and fills in the address only where it was mailed', async () => {
    const { email } = await signUp(h);
    const check = (purpose: 'reset_password' | 'verify_email' | 'change_email', token: string) =>
      mailCaller(h).email.checkLink({ purpose, token });

    await mailCaller(h).email.forgotPassword({ email });
    const older = await tokenFrom(h.db.db, email, 'reset_password');
    await mailCaller(h).email.forgotPassword({ email });
    const newer = await tokenFrom(h.db.db, email, 'reset_password');
    // A newer link replaced it: used.
    expect(await check('reset_password', older)).toEqual({ state: 'used', email });
    expect(await check('reset_password', newer)).toEqual({ state: 'usable' });
    // Another purpose, another realm, another shape: unknown, and nothing said of the account.
    expect(await check('verify_email', newer)).toEqual({ state: 'unknown' });
    await h.realm('other');
    expect(
      await mailCaller(h, { realm: 'other' }).email.checkLink({ purpose: 'reset_password', token: newer }),
    ).toEqual({ state: 'unknown' });
    expect(await check('reset_password', 'x'.repeat(43))).toEqual({ state: 'unknown' });
    expect(await check('reset_password', 'short')).toEqual({ state: 'unknown' });
    expect(await check('reset_password', 'y'.repeat(5000))).toEqual({ state: 'unknown' });

    await h.db.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.tokenHash, hashToken(newer)));
    expect(await check('reset_password', newer)).toEqual({ state: 'expired', email });

    const verify = await tokenFrom(h.db.db, email, 'verify_email');
    expect(await check('verify_email', verify)).toEqual({ state: 'usable' });
    // Older than the account's last credentials change: it stopped working, like an expired one.
    await h.db.db
      .update(users)
      .set({ credentialsChangedAt: sql`clock_timestamp() + interval '1 second'` })
      .where(eq(users.email, email));
    expect(await check('verify_email', verify)).toEqual({ state: 'expired', email });

    // A disabled account's links are unknown, its address never told.
    await h.db.db
      .update(users)
      .set({ disabledAt: sql`now()` })
      .where(eq(users.email, email));
    expect(await check('verify_email', verify)).toEqual({ state: 'unknown' });
  });

  it('refuses bad input with the documented problem, and is counted in a bucket of its own', async () => {
    expect(await problemOf(mailCaller(h).email.checkLink({ purpose: 'reset_password', token: '' }))).toMatchObject({
      status: 422,
      fields: { token: 'required' },
    });
    expect(
      await problemOf(mailCaller(h).email.checkLink({ purpose: 'sign_in' as 'reset_password', token: 'a'.repeat(43) })),
    ).toMatchObject({ status: 422, fields: { purpose: 'invalid_type' } });
    const counted: string[] = [];
    const limited = mailCaller(h, {
      limit: (action) => {
        counted.push(action);
        return 7;
      },
    });
    expect(await problemOf(limited.email.checkLink({ purpose: 'verify_email', token: 'a'.repeat(43) }))).toMatchObject({
      status: 429,
      code: 'rate_limited',
    });
    expect(counted).toEqual(['linkCheck']);
  });
});
