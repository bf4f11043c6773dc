import { STRONG, testDrivers, uniqueEmail } from '@accounts/testing';
import { accountEvents, sessions, users } from '@accounts/db';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { revokeRealmSessions } from '../src/operator/accounts.js';
import { BLOCKED_RECORDS_PER_WINDOW } from '../src/credentials/lockout.js';
import { setRequireVerifiedEmail } from '../src/records/realm-settings.js';
import { createSession, MAX_SESSIONS_PER_ACCOUNT } from '../src/records/sessions.js';
import { problemOf, registerUser, useHarness } from './harness.js';

describe.each(testDrivers())('flows and the audit trail on %s', (driver) => {
  const h = useHarness(driver, { maxPasswordFailures: 2 });

  it('in a realm that requires a confirmed address, registration starts no session, and an unconfirmed session is refused', async () => {
    await h.realm('strict');
    const before = await registerUser(h, { realm: 'strict' });
    await setRequireVerifiedEmail(h.db.db, 'strict', true);
    // Switching the setting on ended the unconfirmed account's sessions.
    expect(await problemOf(h.caller({ realm: 'strict', token: before.token }).account.me())).toMatchObject({
      status: 401,
    });
    const c = h.caller({ realm: 'strict' });
    const email = uniqueEmail('strict');
    const made = await c.account.register({ name: 'Strict', email, password: STRONG, password2: STRONG });
    expect(made).toMatchObject({ emailVerificationRequired: true });
    expect(c.issued).toEqual([]);
    const [row] = await h.db.db.select().from(users).where(eq(users.id, made.user.id));
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, row!.id))).toEqual([]);
    // A session made some other way is refused by the session check while the address is unconfirmed.
    const forged = await createSession(h.db.db, row!.id, h.config);
    expect(await problemOf(h.caller({ realm: 'strict', token: forged.token }).account.me())).toMatchObject({
      status: 401,
    });
    await h.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, row!.id));
    await expect(h.caller({ realm: 'strict', token: forged.token }).account.me()).resolves.toBeTruthy();
  });

  it(`caps an account's sessions at ${MAX_SESSIONS_PER_ACCOUNT}: the oldest ends first; the operator ends every session of a realm`, async () => {
    await h.realm('capped');
    const a = await registerUser(h, { realm: 'capped' });
    for (let i = 0; i < MAX_SESSIONS_PER_ACCOUNT; i++) await createSession(h.db.db, a.user.id, h.config);
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, a.user.id))).toHaveLength(
      MAX_SESSIONS_PER_ACCOUNT,
    );
    expect(await problemOf(h.caller({ realm: 'capped', token: a.token }).account.me())).toMatchObject({ status: 401 });
    const b = await registerUser(h, { realm: 'capped' });
    expect(await revokeRealmSessions(h.db.db, 'capped')).toBe(MAX_SESSIONS_PER_ACCOUNT + 1);
    expect(await problemOf(h.caller({ realm: 'capped', token: b.token }).account.me())).toMatchObject({ status: 401 });
  });

  it('records blocked sign-ins (bounded per client), and the owner sees them on the activity page', async () => {
    const a = await registerUser(h);
    const guess = () =>
      h.caller({ ip: '198.51.100.77' }).account.signIn({ email: a.email, password: 'wrong guess again' });
    for (let i = 0; i < 2; i++) await problemOf(guess());
    for (let i = 0; i < BLOCKED_RECORDS_PER_WINDOW + 3; i++)
      expect(await problemOf(guess())).toMatchObject({ status: 429, code: 'too_many_attempts' });
    const blocked = await h.db.db
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, a.user.id), eq(accountEvents.type, 'sign_in_blocked')));
    expect(blocked).toHaveLength(BLOCKED_RECORDS_PER_WINDOW);
    expect(blocked[0]).toMatchObject({ clientIp: '198.51.100.77', pending: false });
    const { events } = await h.caller({ token: a.token }).security.activity({});
    expect(events.filter((e) => e.type === 'sign_in_blocked')).toHaveLength(BLOCKED_RECORDS_PER_WINDOW);
    expect(events.find((e) => e.type === 'sign_in_blocked')).toMatchObject({ failed: true });
  });

  it("refuses a password built from the realm's name or the product's name", async () => {
    await h.realm('zephyrine');
    const c = h.caller({ realm: 'zephyrine' });
    const problem = await problemOf(
      c.account.register({
        name: 'Ada',
        email: uniqueEmail('ctx'),
        password: 'Realm zephyrine Accounts',
        password2: 'Realm zephyrine Accounts',
      }),
    );
    expect(problem.fields.password).toMatch(/password_too_(similar|common)/);
  });
});
