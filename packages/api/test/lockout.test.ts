import { STRONG2, testDrivers, uniqueEmail } from '@accounts/testing';
import { accountEvents, knownDevices } from '@accounts/db';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addressGroup } from '../src/kernel/device.js';
import { KNOWN_DEVICES_PER_ACCOUNT } from '../src/credentials/known-devices.js';
import { hashToken } from '../src/records/tokens.js';
import { mailCaller, tokenFrom } from './email-harness.js';
import { problemOf, registerUser, useHarness } from './harness.js';

describe('client address groups', () => {
  it('keeps IPv4 whole, folds IPv4-mapped IPv6 into IPv4, and groups IPv6 by /64', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressGroup(null)).toBe('unknown');
  });
});

describe.each(testDrivers())('the lockout on %s', (driver) => {
  // A window far longer than any test takes on a loaded machine, so counts never expire
  // mid-test; the cap is lowered to 12 so reaching it is quick.
  const WINDOW_MS = 60_000;
  const h = useHarness(driver, { failureWindowMs: WINDOW_MS, accountFailureCap: 12 });
  const wrong = (i: number) => `wrong guess number ${i}`;
  const guess = (email: string, ip: string, i: number, device?: string) =>
    problemOf(h.caller({ ip, device }).account.signIn({ email, password: wrong(i) }));

  it('refuses one client after 5 failures while other clients and the known device still sign in', async () => {
    const { email, password, device } = await registerUser(h);
    for (let i = 0; i < 5; i++) expect((await guess(email, '198.51.100.1', i)).status).toBe(422);
    const refused = await problemOf(h.caller({ ip: '198.51.100.1' }).account.signIn({ email, password }));
    expect(refused).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    await expect(h.caller({ ip: '198.51.100.2' }).account.signIn({ email, password })).resolves.toBeTruthy();
    await expect(h.caller({ ip: '198.51.100.1', device }).account.signIn({ email, password })).resolves.toBeTruthy();
  });

  it('counts an IPv6 /64 as one client', async () => {
    const { email, password } = await registerUser(h);
    for (let i = 0; i < 5; i++) expect((await guess(email, `2001:db8:77:1::${i + 1}`, i)).status).toBe(422);
    expect(
      (await problemOf(h.caller({ ip: '2001:db8:77:1:ffff::9' }).account.signIn({ email, password }))).status,
    ).toBe(429);
    await expect(h.caller({ ip: '2001:db8:77:2::1' }).account.signIn({ email, password })).resolves.toBeTruthy();
  });

  it('caps failures of clients without a known device account-wide, and never refuses the known device for them', async () => {
    const { email, password, device } = await registerUser(h);
    for (let i = 0; i < 12; i++) expect((await guess(email, `192.0.2.${i}`, i)).status).toBe(422);
    const fresh = await problemOf(h.caller({ ip: '192.0.2.200' }).account.signIn({ email, password }));
    expect(fresh).toMatchObject({ status: 429, code: 'too_many_attempts' });
    await expect(h.caller({ ip: '192.0.2.200', device }).account.signIn({ email, password })).resolves.toBeTruthy();
  });

  it('does not count a device credential of another account, or a made-up one, as known', async () => {
    const owner = await registerUser(h);
    const other = await registerUser(h);
    const madeUp = 'A'.repeat(43);
    for (let i = 0; i < 5; i++)
      expect((await guess(owner.email, '198.51.100.50', i, i % 2 ? other.device : madeUp)).status).toBe(422);
    expect(
      (
        await problemOf(
          h
            .caller({ ip: '198.51.100.50', device: other.device })
            .account.signIn({ email: owner.email, password: owner.password }),
        )
      ).status,
    ).toBe(429);
  });

  it('keeps a known token and adds a new one in front of tokens of other accounts, storing only digests', async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    const signIn = h.caller({ device: a.device });
    await signIn.account.signIn({ email: b.email, password: b.password });
    const both = signIn.devices[0]!;
    expect(both.split('.')).toHaveLength(2);
    expect(both.endsWith(`.${a.device}`)).toBe(true);
    const again = h.caller({ device: both });
    await again.account.signIn({ email: a.email, password: a.password });
    expect(again.devices[0]).toBe(both);
    const [row] = await h.db.db
      .select()
      .from(knownDevices)
      .where(eq(knownDevices.tokenHash, hashToken(a.device)));
    expect(row?.userId).toBe(a.user.id);
    const stored = JSON.stringify(await h.db.db.select().from(knownDevices));
    expect(stored).not.toContain(a.device);
  });

  it('lets several simultaneous correct sign-ins all succeed: a check in flight is not a failure', async () => {
    const { email, password } = await registerUser(h);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => h.caller({ ip: '198.51.100.60' }).account.signIn({ email, password })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('fulfilled'));
  });

  it('lets no more than 5 of a burst of wrong guesses from one client be checked', async () => {
    const { email, user } = await registerUser(h);
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => guess(email, '198.51.100.70', i)));
    const statuses = burst.map((p) => p.status);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const rows = await h.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, user.id), eq(accountEvents.type, 'sign_in_failed')));
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => !r.pending)).toBe(true);
  });

  it("never refuses change_password for other clients' failures; its own wrong current_password counts against the session", async () => {
    const { email, password, token } = await registerUser(h);
    for (let i = 0; i < 12; i++) await guess(email, `127.0.0.${(i % 3) + 1}`, i);
    expect((await guess(email, '127.0.0.99', 99)).status).toBe(429);
    const first = h.caller({ token });
    await expect(
      first.account.changePassword({ current_password: password, new_password: STRONG2, confirm_password: STRONG2 }),
    ).resolves.toMatchObject({ ok: true });
    const rotated = first.issued[0]!.token;
    for (let i = 0; i < 5; i++) {
      const p = await problemOf(
        h
          .caller({ token: rotated })
          .account.changePassword({ current_password: wrong(i), new_password: password, confirm_password: password }),
      );
      expect(p).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    }
    const refused = await problemOf(
      h
        .caller({ token: rotated })
        .account.changePassword({ current_password: STRONG2, new_password: password, confirm_password: password }),
    );
    expect(refused).toMatchObject({ status: 429, code: 'too_many_attempts' });
  });

  it('treats an email without an account exactly like one with: same answers, same limits', async () => {
    const { email: known } = await registerUser(h);
    const unknown = uniqueEmail('ghost');
    const answers: Record<string, unknown[]> = { known: [], unknown: [] };
    for (let i = 0; i < 14; i++) {
      for (const [who, email] of [
        ['known', known],
        ['unknown', unknown],
      ] as const) {
        const p = await guess(email, `203.0.113.${i % 3}`, i);
        answers[who]!.push([p.status, p.code, p.fields]);
      }
    }
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known!.at(-1)).toEqual([429, 'too_many_attempts', {}]);
  });

  /** A reset by the mailed link, asked for and done from `ip`. */
  async function resetByMail(email: string, ip: string, password = STRONG2) {
    await mailCaller(h, { ip }).email.forgotPassword({ email });
    const token = await tokenFrom(h.db.db, email, 'reset_password');
    await mailCaller(h, { ip }).email.resetPassword({ token, new_password: password, confirm_password: password });
  }

  it('a completed reset lifts the lockout against the old password: the locked client signs in with the new one', async () => {
    const { email, password, user } = await registerUser(h);
    const ip = '198.51.100.80';
    for (let i = 0; i < 5; i++) expect((await guess(email, ip, i)).status).toBe(422);
    expect(await problemOf(h.caller({ ip }).account.signIn({ email, password }))).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
    });
    await resetByMail(email, ip);
    const back = h.caller({ ip });
    await expect(back.account.signIn({ email, password: STRONG2 })).resolves.toBeTruthy();
    expect(back.issued).toHaveLength(1);
    // The events stay (append-only): the old password's failures just no longer count.
    const failed = await h.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, user.id), eq(accountEvents.type, 'sign_in_failed')));
    expect(failed).toHaveLength(5);
    // Guesses at the new password count from zero, as ever.
    for (let i = 0; i < 5; i++) expect((await guess(email, ip, i)).status).toBe(422);
    expect((await guess(email, ip, 5)).status).toBe(429);
  });

  it('a reset lifts the account-wide cap too; an email without an account stays locked', async () => {
    const { email } = await registerUser(h);
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 12; i++) {
      expect((await guess(email, `192.0.2.${100 + i}`, i)).status).toBe(422);
      expect((await guess(ghost, `192.0.2.${100 + i}`, i)).status).toBe(422);
    }
    expect((await guess(email, '192.0.2.250', 99)).status).toBe(429);
    expect((await guess(ghost, '192.0.2.250', 99)).status).toBe(429);
    await resetByMail(email, '192.0.2.251');
    await expect(h.caller({ ip: '192.0.2.250' }).account.signIn({ email, password: STRONG2 })).resolves.toBeTruthy();
    expect((await guess(ghost, '192.0.2.250', 100)).status).toBe(429);
  });

  it('a password change lifts it as a reset does; a signed-in session proved the password', async () => {
    const { email, password, token } = await registerUser(h);
    const ip = '198.51.100.81';
    for (let i = 0; i < 5; i++) await guess(email, ip, i);
    expect((await guess(email, ip, 5)).status).toBe(429);
    await h
      .caller({ token })
      .account.changePassword({ current_password: password, new_password: STRONG2, confirm_password: STRONG2 });
    await expect(h.caller({ ip }).account.signIn({ email, password: STRONG2 })).resolves.toBeTruthy();
  });

  it(`keeps at most ${KNOWN_DEVICES_PER_ACCOUNT} known devices per account, forgetting the least recently used`, async () => {
    const { email, password, device: first, user } = await registerUser(h);
    const signInFrom = async (device?: string) => {
      const c = h.caller({ ip: '198.51.100.90', device });
      await c.account.signIn({ email, password });
      return c.devices[0]!;
    };
    const devices = [first];
    for (let i = 1; i < KNOWN_DEVICES_PER_ACCOUNT; i++) devices.push(await signInFrom());
    const known = async () =>
      (await h.db.db.select().from(knownDevices).where(eq(knownDevices.userId, user.id))).map((d) => d.tokenHash);
    expect(await known()).toHaveLength(KNOWN_DEVICES_PER_ACCOUNT);
    // The first device is used again: the second is now the least recently used.
    await signInFrom(first);
    const newest = await signInFrom();
    const kept = await known();
    expect(kept).toHaveLength(KNOWN_DEVICES_PER_ACCOUNT);
    expect(kept).not.toContain(hashToken(devices[1]!));
    expect(kept).toEqual(expect.arrayContaining([hashToken(first), hashToken(newest), hashToken(devices.at(-1)!)]));
  });
});
