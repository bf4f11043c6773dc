import { createHash } from 'node:crypto';
import { testDrivers } from '@accounts/db/testing';
import { accountEvents, sessions, users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { problemOf, registerUser, STRONG, STRONG2, useHarness } from './harness.js';

const change = (current: string, next: string, confirm = next) => ({ current_password: current, new_password: next, confirm_password: confirm });

describe.each(testDrivers())('sessions and password change on %s', (driver) => {
  const h = useHarness(driver);

  it('issues tokens of 256 random bits and stores only their SHA-256', async () => {
    const { token, user } = await registerUser(h);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const rows = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows.map((r) => r.tokenHash)).toEqual([createHash('sha256').update(token).digest('hex')]);
  });

  it('needs a session to change the password or read me (401)', async () => {
    expect(await problemOf(h.caller().account.changePassword(change(STRONG, STRONG2)))).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await problemOf(h.caller({ token: 'x'.repeat(43) }).account.me())).toMatchObject({ status: 401 });
  });

  it('changes the password: old fails, new works, other sessions die, the caller is rotated with the same expiry', async () => {
    const { token, email, session, user } = await registerUser(h);
    const other = h.caller();
    await other.account.signIn({ email, password: STRONG });
    const otherToken = other.issued[0]!.token;
    await h.caller({ token: otherToken }).account.me();

    const c = h.caller({ token });
    const res = await c.account.changePassword(change(STRONG, STRONG2));
    expect(res).toEqual({ ok: true, otherSessionsRevoked: 1 });
    expect(c.issued).toHaveLength(1);
    const rotated = c.issued[0]!;
    expect(rotated.token).not.toBe(token);
    expect(rotated.expiresAt.getTime()).toBe(session.expiresAt.getTime());

    expect((await problemOf(h.caller({ token }).account.me())).status).toBe(401);
    expect((await problemOf(h.caller({ token: otherToken }).account.me())).status).toBe(401);
    expect((await h.caller({ token: rotated.token }).account.me()).user.id).toBe(user.id);

    expect((await problemOf(h.caller().account.signIn({ email, password: STRONG }))).fields.password).toBe('credentials_invalid');
    await expect(h.caller().account.signIn({ email, password: STRONG2 })).resolves.toBeTruthy();

    const types = (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id))).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['registered', 'signed_in', 'password_changed', 'sessions_revoked', 'sign_in_failed']));
  });

  it('refuses a wrong current password with 422 password_incorrect, and changes nothing', async () => {
    const { token, user } = await registerUser(h);
    const [before] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    const p = await problemOf(h.caller({ token }).account.changePassword(change('not my password at all', STRONG2)));
    expect(p).toMatchObject({ status: 422, code: 'validation_failed', fields: { current_password: 'password_incorrect' } });
    const [after] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    expect(after!.passwordHash).toBe(before!.passwordHash);
    await expect(h.caller({ token }).account.me()).resolves.toBeTruthy();
  });

  it.each([
    ['the same password again', change(STRONG, STRONG), 'new_password', 'password_unchanged'],
    ['a confirmation that differs', change(STRONG, STRONG2, `${STRONG2}.`), 'confirm_password', 'password_mismatch'],
    ['a short new password', change(STRONG, 'tiny pass'), 'new_password', 'password_too_short'],
    ['a common new password', change(STRONG, '1234567890qwerty'), 'new_password', 'password_too_common'],
    ['the user name in the new password', change(STRONG, 'Bartholomew forever and ever'), 'new_password', 'password_too_similar'],
  ])('refuses %s', async (_, input, field, code) => {
    const { token } = await registerUser(h, { name: 'Bartholomew Quince' });
    const p = await problemOf(h.caller({ token }).account.changePassword(input));
    expect(p.status).toBe(422);
    expect(p.fields[field]).toBe(code);
  });

  it('lets exactly one of two concurrent changes from the same current password win', async () => {
    const { token, email, user } = await registerUser(h);
    const second = h.caller();
    await second.account.signIn({ email, password: STRONG });
    const a = h.caller({ token });
    const b = h.caller({ token: second.issued[0]!.token });
    const results = await Promise.allSettled([
      a.account.changePassword(change(STRONG, STRONG2)),
      b.account.changePassword(change(STRONG, 'another brand new passphrase')),
    ]);
    const won = results.findIndex((r) => r.status === 'fulfilled');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = await problemOf(Promise.reject((results[1 - won] as PromiseRejectedResult).reason));
    // The loser's password check failed against the new hash; or, if it was scheduled only after
    // the winner had committed, its session was already revoked.
    if (lost.status === 401) expect(lost.code).toBe('unauthenticated');
    else expect(lost.fields.current_password).toBe('password_incorrect');
    const winnerPassword = won === 0 ? STRONG2 : 'another brand new passphrase';
    await expect(h.caller().account.signIn({ email, password: winnerPassword })).resolves.toBeTruthy();
    const live = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(live).toHaveLength(2); // the winner's rotated session and the sign-in just made
  });

  it('signs out: the session is deleted and the sink told to clear it', async () => {
    const { token } = await registerUser(h);
    const c = h.caller({ token });
    await expect(c.account.signOut()).resolves.toEqual({ ok: true });
    expect(c.cleared).toBe(1);
    expect((await problemOf(h.caller({ token }).account.me())).status).toBe(401);
  });

  it('does not accept a session of one realm in another', async () => {
    await h.realm('other');
    const { token } = await registerUser(h);
    expect((await problemOf(h.caller({ realm: 'other', token }).account.me())).status).toBe(401);
  });
});

describe.each(testDrivers())('session expiry on %s', (driver) => {
  const idle = useHarness(driver, { sessionIdleMs: 1500 });

  it('expires a session left idle past the idle timeout', async () => {
    const { token } = await registerUser(idle);
    await expect(idle.caller({ token }).account.me()).resolves.toBeTruthy();
    await new Promise((r) => setTimeout(r, 1700));
    expect((await problemOf(idle.caller({ token }).account.me())).status).toBe(401);
  });

  it('expires a session at its absolute lifetime even when in use', async () => {
    idle.config = { ...idle.config, sessionIdleMs: 60_000, sessionTtlMs: 1200 };
    const { token } = await registerUser(idle);
    await expect(idle.caller({ token }).account.me()).resolves.toBeTruthy();
    await new Promise((r) => setTimeout(r, 1400));
    expect((await problemOf(idle.caller({ token }).account.me())).status).toBe(401);
  });
});
