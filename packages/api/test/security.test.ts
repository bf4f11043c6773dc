import { STRONG, STRONG2, testDrivers, uniqueEmail } from '@accounts/testing';
import { accountEvents, knownDevices, sessions, users } from '@accounts/db';
import { eq, isNull, and } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { disableAccount, enableAccount, listAccounts, revokeAccountSessions } from '../src/account-admin.js';
import { USER_AGENT_MAX_LENGTH } from '../src/device.js';
import { createSession } from '../src/sessions.js';
import { problemOf, registerUser, useHarness, type Harness } from './harness.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** A second session of the account, from another device. */
async function signInAgain(h: Harness, email: string, opts: { ip?: string; userAgent?: string } = {}) {
  const c = h.caller({ ip: opts.ip ?? '198.51.100.20', userAgent: opts.userAgent ?? SAFARI });
  await c.account.signIn({ email, password: STRONG });
  return c.issued[0]!.token;
}

const typesOf = async (h: Harness, userId: string) =>
  (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);

describe.each(testDrivers())('the security page on %s', (driver) => {
  const h = useHarness(driver);

  it('lists the live sessions with device and shortened address, the caller first, never a token', async () => {
    const email = uniqueEmail();
    const first = h.caller({ ip: '203.0.113.77', userAgent: FIREFOX });
    await first.account.register({ name: 'Ada', email, password: STRONG, password2: STRONG });
    const token = first.issued[0]!.token;
    const other = await signInAgain(h, email, { ip: '2001:db8:85a3:1::9' });

    const { sessions: list } = await h.caller({ token }).security.sessions();
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ current: true, device: 'Firefox 128 on Windows 10', address: '203.0.113.x' });
    expect(list[1]).toMatchObject({ current: false, device: 'Mobile Safari 17 on iOS 17.5', address: '2001:db8:85a3::/48' });
    expect(list[0]!.createdAt).toBeInstanceOf(Date);
    expect(list[0]!.lastUsedAt).toBeInstanceOf(Date);
    expect(Object.keys(list[0]!).sort()).toEqual(['address', 'createdAt', 'current', 'device', 'id', 'lastUsedAt']);
    expect(JSON.stringify(list)).not.toContain(token);
    expect(JSON.stringify(list)).not.toContain(other);
    // The other device sees itself as the current one.
    const seen = (await h.caller({ token: other }).security.sessions()).sessions;
    expect(seen.map((s) => s.current)).toEqual([true, false]);
    expect(seen[0]!.id).toBe(list[1]!.id);
    expect(await problemOf(h.caller().security.sessions())).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('records the User-Agent, cut to a sane length, and the address on sessions and events', async () => {
    const email = uniqueEmail();
    const c = h.caller({ ip: '192.0.2.5', userAgent: `${FIREFOX} ${'x'.repeat(3000)}` });
    const { user } = await c.account.register({ name: 'Ada', email, password: STRONG, password2: STRONG });
    const [s] = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(s!.userAgent).toHaveLength(USER_AGENT_MAX_LENGTH);
    expect(s!.clientIp).toBe('192.0.2.5');
    await h.caller({ ip: '192.0.2.6', userAgent: 'curl/8.5.0' }).account.signIn({ email, password: STRONG });
    const events = await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, user.id));
    expect(events.find((e) => e.type === 'registered')).toMatchObject({ clientIp: '192.0.2.5' });
    expect(events.find((e) => e.type === 'signed_in')).toMatchObject({ clientIp: '192.0.2.6', userAgent: 'curl/8.5.0' });
  });

  it('ends one session: another account\'s, a malformed and an unknown id get the same 404', async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    const aOther = await signInAgain(h, a.email);
    const bId = (await h.caller({ token: b.token }).security.sessions()).sessions[0]!.id;
    const ca = h.caller({ token: a.token });
    for (const id of [bId, 'not-a-uuid', '00000000-0000-4000-8000-000000000000', `${bId}'; drop table sessions; --`]) {
      expect(await problemOf(ca.security.revokeSession({ session_id: id }))).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(await problemOf(ca.security.revokeSession({ session_id: '' }))).toMatchObject({ status: 422, fields: { session_id: 'required' } });
    await expect(h.caller({ token: b.token }).account.me()).resolves.toBeTruthy();

    const otherId = (await ca.security.sessions()).sessions.find((s) => !s.current)!.id;
    expect(await ca.security.revokeSession({ session_id: otherId.toUpperCase() })).toEqual({ ok: true, signedOut: false });
    expect(ca.cleared).toBe(0);
    // The ended session, used again: 401.
    expect(await problemOf(h.caller({ token: aOther }).account.me())).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await problemOf(ca.security.revokeSession({ session_id: otherId }))).toMatchObject({ status: 404 });
    await expect(ca.account.me()).resolves.toBeTruthy();

    // Ending one's own session is a sign-out.
    const ownId = (await ca.security.sessions()).sessions[0]!.id;
    expect(await ca.security.revokeSession({ session_id: ownId })).toEqual({ ok: true, signedOut: true });
    expect(ca.cleared).toBe(1);
    expect(await problemOf(ca.account.me())).toMatchObject({ status: 401 });
    expect((await typesOf(h, a.user.id)).filter((t) => t === 'session_revoked')).toHaveLength(2);
  });

  it('ends every other session, keeping the caller\'s', async () => {
    const a = await registerUser(h);
    const others = [await signInAgain(h, a.email), await signInAgain(h, a.email, { ip: '198.51.100.30' })];
    const b = await registerUser(h);
    const ca = h.caller({ token: a.token });
    expect(await ca.security.revokeOtherSessions()).toEqual({ ok: true, revoked: 2 });
    for (const t of others) expect(await problemOf(h.caller({ token: t }).account.me())).toMatchObject({ status: 401 });
    expect((await ca.security.sessions()).sessions).toHaveLength(1);
    await expect(h.caller({ token: b.token }).account.me()).resolves.toBeTruthy();
    expect(await typesOf(h, a.user.id)).toContain('sessions_revoked');
    expect(await problemOf(h.caller({ token: others[0] }).security.revokeOtherSessions())).toMatchObject({ status: 401 });
  });

  it('shows the account\'s own activity, newest first, failures marked, a page at a time', async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    await h.caller({ ip: '203.0.113.9', userAgent: FIREFOX }).account.signIn({ email: a.email, password: 'not the password at all' }).catch(() => {});
    await h.caller({ ip: '203.0.113.9', userAgent: FIREFOX }).account.signIn({ email: b.email, password: 'not the password at all' }).catch(() => {});
    const ca = h.caller({ token: a.token });
    const first = await ca.security.activity({});
    expect(first.events.map((e) => e.type)).toEqual(['sign_in_failed', 'registered']);
    expect(first.events[0]).toMatchObject({ failed: true, device: 'Firefox 128 on Windows 10', address: '203.0.113.x' });
    expect(first.events[1]!.failed).toBe(false);
    expect(first.nextCursor).toBeNull();
    expect(await ca.security.activity({ cursor: '' })).toEqual(first);

    // 60 more events: pages of 50, newest first, no event twice or missed.
    const [{ realmId }] = (await h.db.db.select({ realmId: users.realmId }).from(users).where(eq(users.id, a.user.id))) as [{ realmId: string }];
    await h.db.db.insert(accountEvents).values(Array.from({ length: 60 }, () => ({ realmId, userId: a.user.id, type: 'signed_out' })));
    const page1 = await ca.security.activity({});
    expect(page1.events).toHaveLength(50);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await ca.security.activity({ cursor: page1.nextCursor! });
    expect(page2.events).toHaveLength(12);
    expect(page2.nextCursor).toBeNull();
    const ids = [...page1.events, ...page2.events].map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(62);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect(page2.events.at(-1)!.type).toBe('registered');

    // Another account sees none of it; a cursor from a's list shows b only b's older events.
    const cb = h.caller({ token: b.token });
    const bPage = await cb.security.activity({ cursor: page1.nextCursor! });
    expect(bPage.events.every((e) => e.type !== 'signed_out')).toBe(true);
    const bAll = await cb.security.activity({});
    expect(bAll.events.map((e) => e.type)).toEqual(['sign_in_failed', 'registered']);
    expect(bAll.events.filter((e) => ids.includes(Number(e.id)))).toEqual([]);

    for (const cursor of ['!!', 'bm9wZQ', 'x'.repeat(40), 'ZTA']) {
      expect(await problemOf(ca.security.activity({ cursor }))).toMatchObject({ status: 422, fields: { cursor: 'cursor_invalid' } });
    }
    expect(await problemOf(h.caller().security.activity({}))).toMatchObject({ status: 401 });
  });

  it('changes the name under the registration rules', async () => {
    const a = await registerUser(h);
    const ca = h.caller({ token: a.token });
    expect((await ca.security.changeName({ name: '  Grace   Hopper ' })).user).toMatchObject({ id: a.user.id, name: 'Grace Hopper' });
    expect((await ca.account.me()).user.name).toBe('Grace Hopper');
    expect(await problemOf(ca.security.changeName({ name: 'a\u202eb' }))).toMatchObject({ status: 422, fields: { name: 'name_invalid_chars' } });
    expect(await problemOf(ca.security.changeName({ name: '' }))).toMatchObject({ status: 422, fields: { name: 'required' } });
    expect(await problemOf(ca.security.changeName({ name: 'x'.repeat(151) }))).toMatchObject({ status: 422, fields: { name: 'name_too_long' } });
    expect(await typesOf(h, a.user.id)).toContain('name_changed');
  });

  it('deletes the account after the password check, keeps one event with no personal data, and frees the email', async () => {
    const a = await registerUser(h);
    const other = await signInAgain(h, a.email);
    const ca = h.caller({ token: a.token, device: a.device });
    expect(await problemOf(ca.security.deleteAccount({ current_password: 'not the password at all' }))).toMatchObject({
      status: 422,
      code: 'validation_failed',
      fields: { current_password: 'password_incorrect' },
    });
    expect(await problemOf(ca.security.deleteAccount({ current_password: '' }))).toMatchObject({ status: 422, fields: { current_password: 'required' } });
    await expect(ca.account.me()).resolves.toBeTruthy();

    expect(await ca.security.deleteAccount({ current_password: STRONG })).toEqual({ ok: true });
    expect(ca.cleared).toBe(1);
    for (const t of [a.token, other]) expect(await problemOf(h.caller({ token: t }).account.me())).toMatchObject({ status: 401 });
    expect(await h.db.db.select().from(users).where(eq(users.id, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(knownDevices).where(eq(knownDevices.userId, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(accountEvents).where(eq(accountEvents.lockoutKey, a.user.id))).toEqual([]);
    const kept = await h.db.db.select().from(accountEvents).where(and(eq(accountEvents.type, 'account_deleted'), isNull(accountEvents.userId)));
    expect(kept.length).toBeGreaterThanOrEqual(1);
    for (const e of kept) expect(e).toMatchObject({ userId: null, lockoutKey: null, clientKey: null, clientIp: null, userAgent: null, pending: false });

    // The email can be registered again, as a new account.
    const again = await registerUser(h, { email: a.email, password: STRONG2 });
    expect(again.user.id).not.toBe(a.user.id);
    expect(await problemOf(h.caller().account.signIn({ email: a.email, password: STRONG }))).toMatchObject({ fields: { password: 'credentials_invalid' } });
  });

  it('counts wrong passwords at deletion with the password change\'s lockout', async () => {
    const a = await registerUser(h);
    const ca = h.caller({ token: a.token });
    const wrong = 'not the password at all';
    for (let i = 0; i < 3; i++) await problemOf(ca.account.changePassword({ current_password: `${wrong} ${i}`, new_password: STRONG2, confirm_password: STRONG2 }));
    for (let i = 0; i < 2; i++) expect((await problemOf(ca.security.deleteAccount({ current_password: `${wrong} ${i}` }))).status).toBe(422);
    expect(await problemOf(ca.security.deleteAccount({ current_password: STRONG }))).toMatchObject({ status: 429, code: 'too_many_attempts' });
    await expect(ca.account.me()).resolves.toBeTruthy();
  });

  it('disabled accounts: sessions end at once, sign-in answers as a wrong password, enabling restores sign-in', async () => {
    await h.realm('ops');
    const a = await registerUser(h, { realm: 'ops' });
    const second = h.caller({ realm: 'ops' });
    await second.account.signIn({ email: a.email, password: STRONG });
    const listed = await listAccounts(h.db.db, 'ops');
    expect(listed.find((r) => r.email === a.email)).toMatchObject({ disabledAt: null, sessions: 2 });

    expect(await disableAccount(h.db.db, 'ops', a.email)).toEqual({ changed: true, revoked: 2 });
    expect(await disableAccount(h.db.db, 'ops', a.email)).toEqual({ changed: false, revoked: 0 });
    expect(await problemOf(h.caller({ realm: 'ops', token: a.token }).account.me())).toMatchObject({ status: 401 });
    const right = await problemOf(h.caller({ realm: 'ops', ip: '198.51.100.70' }).account.signIn({ email: a.email, password: STRONG }));
    const wrong = await problemOf(h.caller({ realm: 'ops', ip: '198.51.100.71' }).account.signIn({ email: a.email, password: 'not the password at all' }));
    expect(right).toEqual(wrong);
    expect(right).toMatchObject({ status: 422, fields: { password: 'credentials_invalid' } });
    // A session that exists anyway is refused while the account is disabled.
    const [{ id }] = (await h.db.db.select({ id: users.id }).from(users).where(eq(users.id, a.user.id))) as [{ id: string }];
    const stray = await createSession(h.db.db, id, h.config);
    expect(await problemOf(h.caller({ realm: 'ops', token: stray.token }).account.me())).toMatchObject({ status: 401 });
    expect((await listAccounts(h.db.db, 'ops')).find((r) => r.email === a.email)!.disabledAt).toBeInstanceOf(Date);

    expect(await enableAccount(h.db.db, 'ops', a.email)).toEqual({ changed: true });
    await expect(h.caller({ realm: 'ops', token: stray.token }).account.me()).resolves.toBeTruthy();
    await h.caller({ realm: 'ops', ip: '198.51.100.72' }).account.signIn({ email: a.email, password: STRONG });
    expect(await revokeAccountSessions(h.db.db, 'ops', a.email)).toBe(2);
    expect(await problemOf(h.caller({ realm: 'ops', token: stray.token }).account.me())).toMatchObject({ status: 401 });
    expect(await typesOf(h, a.user.id)).toEqual(expect.arrayContaining(['account_disabled', 'account_enabled', 'sessions_revoked', 'sign_in_failed']));
    await expect(disableAccount(h.db.db, 'ops', 'nobody@example.com')).rejects.toThrow('There is no account nobody@example.com in realm "ops".');
    await expect(listAccounts(h.db.db, 'nope')).rejects.toThrow('There is no realm "nope".');
  });
});
