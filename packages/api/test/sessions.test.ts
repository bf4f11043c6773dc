import { createHash } from 'node:crypto';
import { STRONG, STRONG2, testDrivers } from '@accounts/testing';
import { accountEvents, sessions, users } from '@accounts/db';
import { eq, sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { toProblem } from '../src/kernel/errors.js';
import { problemFrom, problemOf, registerUser, useHarness } from './harness.js';

const change = (current: string, next: string, confirm = next) => ({
  current_password: current,
  new_password: next,
  confirm_password: confirm,
});

describe.each(testDrivers())('sessions and password change on %s', (driver) => {
  const h = useHarness(driver);

  it('issues tokens of 256 random bits and stores only their SHA-256', async () => {
    const { token, user } = await registerUser(h);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const rows = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows.map((r) => r.tokenHash)).toEqual([createHash('sha256').update(token).digest('hex')]);
  });

  it('needs a session to change the password or read me (401)', async () => {
    expect(await problemOf(h.caller().account.changePassword(change(STRONG, STRONG2)))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
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

    expect((await problemOf(h.caller().account.signIn({ email, password: STRONG }))).fields.password).toBe(
      'credentials_invalid',
    );
    await expect(h.caller().account.signIn({ email, password: STRONG2 })).resolves.toBeTruthy();

    const types = (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id))).map(
      (e) => e.type,
    );
    expect(types).toEqual(
      expect.arrayContaining(['registered', 'signed_in', 'password_changed', 'sessions_revoked', 'sign_in_failed']),
    );
  });

  it('refuses a wrong current password with 422 password_incorrect, and changes nothing', async () => {
    const { token, user } = await registerUser(h);
    const [before] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    const p = await problemOf(h.caller({ token }).account.changePassword(change('not my password at all', STRONG2)));
    expect(p).toMatchObject({
      status: 422,
      code: 'validation_failed',
      fields: { current_password: 'password_incorrect' },
    });
    const [after] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    expect(after!.passwordHash).toBe(before!.passwordHash);
    await expect(h.caller({ token }).account.me()).resolves.toBeTruthy();
  });

  it.each([
    ['the same password again', change(STRONG, STRONG), 'new_password', 'password_unchanged'],
    ['a confirmation that differs', change(STRONG, STRONG2, `${STRONG2}.`), 'confirm_password', 'password_mismatch'],
    ['a short new password', change(STRONG, 'tiny pass'), 'new_password', 'password_too_short'],
    ['a common new password', change(STRONG, '1234567890qwerty'), 'new_password', 'password_too_common'],
    [
      'the user name in the new password',
      change(STRONG, 'Bartholomew Quince forever'),
      'new_password',
      'password_too_similar',
    ],
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
    const lost = await problemFrom((results[1 - won] as PromiseRejectedResult).reason);
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

  it('gives no session to a sign-in whose password was verified just before a change committed', async () => {
    const { email, token } = await registerUser(h);
    const real = h.hasher;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let verified!: () => void;
    const verifiedP = new Promise<void>((r) => (verified = r));
    // The sign-in's password check succeeds, then waits until the change has committed.
    h.hasher = {
      ...real,
      verify: async (password, hash) => {
        const ok = await real.verify(password, hash);
        verified();
        await held;
        return ok;
      },
    };
    try {
      const signingIn = problemOf(h.caller().account.signIn({ email, password: STRONG }));
      await verifiedP;
      h.hasher = real;
      await h.caller({ token }).account.changePassword(change(STRONG, STRONG2));
      release();
      expect(await signingIn).toMatchObject({ status: 422, fields: { password: 'credentials_invalid' } });
    } finally {
      h.hasher = real;
    }
    const [user] = await h.db.db.select().from(users).where(eq(users.email, email));
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, user!.id))).toHaveLength(1);
  });

  it('does not accept a session of one realm in another', async () => {
    await h.realm('other');
    const { token } = await registerUser(h);
    expect((await problemOf(h.caller({ realm: 'other', token }).account.me())).status).toBe(401);
  });
});

// Session times are the database's: these tests move time by ageing a session's row.
describe.each(testDrivers())('session expiry on %s', (driver) => {
  const HOUR = 3600_000;
  const h = useHarness(driver, { sessionIdleMs: HOUR, sessionTtlMs: 24 * HOUR });
  const age = (token: string, set: Partial<Record<'lastSeenAt' | 'expiresAt', SQL>>) =>
    h.db.db
      .update(sessions)
      .set(set)
      .where(eq(sessions.tokenHash, createHash('sha256').update(token).digest('hex')));
  const me = (token: string) =>
    h
      .caller({ token })
      .account.me()
      .then(
        () => 200,
        (err: unknown) => toProblem(err, 'en').status,
      );

  it('sets the expiry from the database clock: created_at plus the lifetime', async () => {
    const { user, session } = await registerUser(h);
    const [row] = await h.db.db
      .select({
        lifetime: sql<number>`extract(epoch from ${sessions.expiresAt} - ${sessions.createdAt}) * 1000`,
        expiresAt: sessions.expiresAt,
      })
      .from(sessions)
      .where(eq(sessions.userId, user.id));
    expect(Number(row!.lifetime)).toBe(24 * HOUR);
    expect(session.expiresAt.getTime()).toBe(row!.expiresAt.getTime());
  });

  it('expires a session left idle past the idle timeout, and not before', async () => {
    const { token } = await registerUser(h);
    await age(token, { lastSeenAt: sql`now() - interval '59 minutes'` });
    expect(await me(token)).toBe(200);
    await age(token, { lastSeenAt: sql`now() - interval '61 minutes'` });
    expect(await me(token)).toBe(401);
  });

  it('keeps a session that is in use alive past the idle timeout', async () => {
    const { token } = await registerUser(h);
    await age(token, { lastSeenAt: sql`now() - interval '50 minutes'` });
    expect(await me(token)).toBe(200); // use marks it seen now
    await age(token, { lastSeenAt: sql`${sessions.lastSeenAt} - interval '20 minutes'` });
    // 70 minutes after it was first aged, 20 after its last use: still alive.
    expect(await me(token)).toBe(200);
  });

  it('expires a session at its absolute lifetime even when in use', async () => {
    const { token } = await registerUser(h);
    await age(token, { expiresAt: sql`now() + interval '1 minute'`, lastSeenAt: sql`now()` });
    expect(await me(token)).toBe(200);
    await age(token, { expiresAt: sql`now() - interval '1 second'`, lastSeenAt: sql`now()` });
    expect(await me(token)).toBe(401);
  });
});
