import { eq, sql } from 'drizzle-orm';
import { users } from '@accounts/db';
import { parseOtpauth, STRONG, STRONG2, testDrivers, totpCode } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { noPassword } from '../src/records/users.js';
import { problemOf, registerUser, useHarness } from './harness.js';

// What the account page (the hub) reads of the account besides its two-step sign-in:
// account.me's `security` (when the password was set, whether to suggest a second factor), and
// the suggestion dismissed for good, kept with the account.
describe.each(testDrivers())('the account page’s data on %s', (driver) => {
  const h = useHarness(driver);

  const rowOf = async (id: string) => (await h.db.db.select().from(users).where(eq(users.id, id)))[0]!;

  it('says when the password was last set: at registration, then at each change', async () => {
    const { user, token } = await registerUser(h);
    const me = await h.caller({ token }).account.me();
    const registered = (await rowOf(user.id)).passwordChangedAt;
    expect(me.security.passwordChangedAt).toEqual(registered);
    expect(me.security.passwordChangedAt).toBeInstanceOf(Date);

    // Set back a day, so that the change is seen to move it.
    await h.db.db
      .update(users)
      .set({ passwordChangedAt: sql`now() - interval '1 day'` })
      .where(eq(users.id, user.id));
    const before = (await h.caller({ token }).account.me()).security.passwordChangedAt!;
    expect(Date.now() - before.getTime()).toBeGreaterThan(86_000_000);
    const changer = h.caller({ token });
    await changer.account.changePassword({
      current_password: STRONG,
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    const after = (await h.caller({ token: changer.issued[0]!.token }).account.me()).security.passwordChangedAt!;
    expect(after.getTime()).toBeGreaterThan(before.getTime());
    expect(after).toEqual((await rowOf(user.id)).passwordChangedAt);
  });

  it('says the account has no password when it was made by signing in elsewhere', async () => {
    const { user, token } = await registerUser(h);
    await h.db.db.update(users).set({ passwordHash: noPassword() }).where(eq(users.id, user.id));
    expect((await h.caller({ token }).account.me()).security.passwordChangedAt).toBeNull();
  });

  it('suggests a second factor to an account without one, and never again once dismissed, on every device', async () => {
    const { user, email, token } = await registerUser(h);
    expect((await h.caller({ token }).account.me()).security.suggestSecondFactor).toBe(true);
    const phone = h.caller({ ip: '198.51.100.7' });
    await phone.account.signIn({ email, password: STRONG });
    const phoneToken = phone.issued[0]!.token;

    expect(await h.caller({ token }).account.dismissSecondFactorSuggestion()).toEqual({ ok: true });
    const dismissedAt = (await rowOf(user.id)).secondFactorSuggestionDismissedAt;
    expect(dismissedAt).toBeInstanceOf(Date);
    expect((await h.caller({ token }).account.me()).security.suggestSecondFactor).toBe(false);
    // Another device's session sees it dismissed too: it is the account's, not the browser's.
    expect((await h.caller({ token: phoneToken }).account.me()).security.suggestSecondFactor).toBe(false);
    // Dismissing it again changes nothing: the first time stays.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await h.caller({ token: phoneToken }).account.dismissSecondFactorSuggestion()).toEqual({ ok: true });
    expect((await rowOf(user.id)).secondFactorSuggestionDismissedAt).toEqual(dismissedAt);
    // The copy of the account's data holds it, as everything held about the account.
    const copy = await h.caller({ token }).accountData.export({});
    expect(copy.account.secondFactorSuggestionDismissedAt).toEqual(dismissedAt);
  });

  it('suggests nothing while the account has the app, and again once it is off (never dismissed)', async () => {
    const { token } = await registerUser(h);
    const owner = h.caller({ token });
    const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
    const { recoveryCodes } = await owner.twoStep.enableTotp({ code: totpCode(secret), current_password: STRONG });
    const me = await h.caller({ token }).account.me();
    expect(me.twoStep.methods).toEqual(['totp', 'recovery_code']);
    expect(me.security.suggestSecondFactor).toBe(false);
    await h.caller({ token }).twoStep.disableTotp({ current_password: STRONG, code: recoveryCodes[0]! });
    const off = await h.caller({ token }).account.me();
    expect(off.twoStep.enabled).toBe(false);
    expect(off.security.suggestSecondFactor).toBe(true);
    // Nothing is kept in the export until it is dismissed.
    expect((await h.caller({ token }).accountData.export({})).account.secondFactorSuggestionDismissedAt).toBeNull();
  });

  it('refuses a dismissal without a session (401) and over the limit on writes (429), changing nothing', async () => {
    const { user, token } = await registerUser(h);
    expect(await problemOf(h.caller().account.dismissSecondFactorSuggestion())).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    const limited = h.caller({ token, limit: (action) => (action === 'accountWrite' ? 120 : null) });
    expect(await problemOf(limited.account.dismissSecondFactorSuggestion())).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfter: 120,
    });
    expect((await rowOf(user.id)).secondFactorSuggestionDismissedAt).toBeNull();
    expect((await h.caller({ token }).account.me()).security.suggestSecondFactor).toBe(true);
  });
});
