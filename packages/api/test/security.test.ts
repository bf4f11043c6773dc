import { STRONG, STRONG2, testDrivers, uniqueEmail } from '@accounts/testing';
import { accountEvents, knownDevices, sessions, users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { disableAccount, enableAccount, listAccounts, revokeAccountSessions } from '../src/operator/accounts.js';
import { USER_AGENT_MAX_LENGTH } from '../src/kernel/device.js';
import { subjectDigest } from '../src/records/events.js';
import { findRealm } from '../src/records/realms.js';
import { createSession } from '../src/records/sessions.js';
import { operatorMail } from './email-harness.js';
import { problemOf, registerUser, useHarness, type Harness } from './harness.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** A second session of the account, from another device. */
async function signInAgain(h: Harness, email: string, opts: { ip?: string; userAgent?: string } = {}) {
  const c = h.caller({ ip: opts.ip ?? '198.51.100.20', userAgent: opts.userAgent ?? SAFARI });
  await c.account.signIn({ email, password: STRONG });
  return c.issued[0]!.token;
}

/** An activity cursor as the activity list hands it out: the event's public id, as base64url. */
const cursorOf = (publicId: string) => Buffer.from(publicId.replaceAll('-', ''), 'hex').toString('base64url');

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
    expect(list[1]).toMatchObject({
      current: false,
      device: 'Mobile Safari 17 on iOS 17.5',
      address: '2001:db8:85a3::/48',
    });
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
    expect(events.find((e) => e.type === 'signed_in')).toMatchObject({
      clientIp: '192.0.2.6',
      userAgent: 'curl/8.5.0',
    });
  });

  it("ends one session: another account's, a malformed and an unknown id get the same 404", async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    const aOther = await signInAgain(h, a.email);
    const bId = (await h.caller({ token: b.token }).security.sessions()).sessions[0]!.id;
    const ca = h.caller({ token: a.token });
    for (const id of [bId, 'not-a-uuid', '00000000-0000-4000-8000-000000000000', `${bId}'; drop table sessions; --`]) {
      expect(await problemOf(ca.security.revokeSession({ session_id: id }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
    expect(await problemOf(ca.security.revokeSession({ session_id: '' }))).toMatchObject({
      status: 422,
      fields: { session_id: 'required' },
    });
    await expect(h.caller({ token: b.token }).account.me()).resolves.toBeTruthy();

    const otherId = (await ca.security.sessions()).sessions.find((s) => !s.current)!.id;
    expect(await ca.security.revokeSession({ session_id: otherId.toUpperCase(), current_password: STRONG })).toEqual({
      ok: true,
      signedOut: false,
    });
    expect(ca.cleared).toBe(0);
    // The ended session, used again: 401.
    expect(await problemOf(h.caller({ token: aOther }).account.me())).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    expect(await problemOf(ca.security.revokeSession({ session_id: otherId, current_password: STRONG }))).toMatchObject(
      { status: 404 },
    );
    await expect(ca.account.me()).resolves.toBeTruthy();

    // Ending one's own session is a sign-out.
    const ownId = (await ca.security.sessions()).sessions[0]!.id;
    expect(await ca.security.revokeSession({ session_id: ownId })).toEqual({ ok: true, signedOut: true });
    expect(ca.cleared).toBe(1);
    expect(await problemOf(ca.account.me())).toMatchObject({ status: 401 });
    expect((await typesOf(h, a.user.id)).filter((t) => t === 'session_revoked')).toHaveLength(2);
  });

  it("ends every other session, keeping the caller's", async () => {
    const a = await registerUser(h);
    const others = [await signInAgain(h, a.email), await signInAgain(h, a.email, { ip: '198.51.100.30' })];
    const b = await registerUser(h);
    const ca = h.caller({ token: a.token });
    expect(await ca.security.revokeOtherSessions({ current_password: STRONG })).toEqual({ ok: true, revoked: 2 });
    for (const t of others) expect(await problemOf(h.caller({ token: t }).account.me())).toMatchObject({ status: 401 });
    expect((await ca.security.sessions()).sessions).toHaveLength(1);
    await expect(h.caller({ token: b.token }).account.me()).resolves.toBeTruthy();
    expect(await typesOf(h, a.user.id)).toContain('sessions_revoked');
    expect(
      await problemOf(h.caller({ token: others[0] }).security.revokeOtherSessions({ current_password: STRONG })),
    ).toMatchObject({ status: 401 });
  });

  it('asks for the current password before ending other sessions; a stolen session alone ends none', async () => {
    const a = await registerUser(h);
    const other = await signInAgain(h, a.email);
    const ca = h.caller({ token: a.token });
    const otherId = (await ca.security.sessions()).sessions.find((s) => !s.current)!.id;
    const wrong = 'not the password at all';
    expect(await problemOf(ca.security.revokeOtherSessions({} as never))).toMatchObject({
      status: 422,
      fields: { current_password: 'required' },
    });
    expect(await problemOf(ca.security.revokeOtherSessions({ current_password: wrong }))).toMatchObject({
      status: 422,
      code: 'validation_failed',
      fields: { current_password: 'password_incorrect' },
    });
    expect(await problemOf(ca.security.revokeSession({ session_id: otherId }))).toMatchObject({
      status: 422,
      fields: { current_password: 'required' },
    });
    expect(await problemOf(ca.security.revokeSession({ session_id: otherId, current_password: wrong }))).toMatchObject({
      status: 422,
      fields: { current_password: 'password_incorrect' },
    });
    // Nothing ended; the wrong passwords count as a password change's do.
    await expect(h.caller({ token: other }).account.me()).resolves.toBeTruthy();
    expect((await ca.security.sessions()).sessions).toHaveLength(2);
    const types = await typesOf(h, a.user.id);
    expect(types.filter((t) => t === 'password_change_failed')).toHaveLength(2);
    expect(types).not.toContain('session_revoked');
    expect(types).not.toContain('sessions_revoked');

    // The right password: one event per action, no claim left pending.
    expect(await ca.security.revokeSession({ session_id: otherId, current_password: STRONG })).toEqual({
      ok: true,
      signedOut: false,
    });
    await signInAgain(h, a.email);
    expect(await ca.security.revokeOtherSessions({ current_password: STRONG })).toEqual({ ok: true, revoked: 1 });
    const after = await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, a.user.id));
    expect(after.filter((e) => e.type === 'session_revoked')).toHaveLength(1);
    expect(after.filter((e) => e.type === 'sessions_revoked')).toHaveLength(1);
    expect(after.filter((e) => e.pending)).toEqual([]);
    // Ending one's own session is a sign-out: no password.
    const ownId = (await ca.security.sessions()).sessions[0]!.id;
    expect(await ca.security.revokeSession({ session_id: ownId })).toEqual({ ok: true, signedOut: true });
  });

  it('counts wrong passwords at ending sessions with the lockout and the limits of a password change', async () => {
    const a = await registerUser(h);
    const other = await signInAgain(h, a.email);
    const asked: string[] = [];
    const ca = h.caller({
      token: a.token,
      limit: (action) => {
        asked.push(action);
        return null;
      },
    });
    const otherId = (await ca.security.sessions()).sessions.find((s) => !s.current)!.id;
    const wrong = 'not the password at all';
    for (let i = 0; i < 3; i++)
      await problemOf(
        ca.account.changePassword({
          current_password: `${wrong} ${i}`,
          new_password: STRONG2,
          confirm_password: STRONG2,
        }),
      );
    expect((await problemOf(ca.security.revokeOtherSessions({ current_password: `${wrong} 3` }))).status).toBe(422);
    expect(
      (await problemOf(ca.security.revokeSession({ session_id: otherId, current_password: `${wrong} 4` }))).status,
    ).toBe(422);
    expect(await problemOf(ca.security.revokeOtherSessions({ current_password: STRONG }))).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
    });
    expect(await problemOf(ca.security.revokeSession({ session_id: otherId, current_password: STRONG }))).toMatchObject(
      { status: 429, code: 'too_many_attempts' },
    );
    await expect(h.caller({ token: other }).account.me()).resolves.toBeTruthy();
    // Each password check also counted against the per-address limit of a password change.
    expect(asked.filter((x) => x === 'passwordCheck')).toHaveLength(3 + 4);

    // Over that per-address limit: 429 before any hashing, nothing ends.
    const b = await registerUser(h);
    const bOther = await signInAgain(h, b.email);
    const limited = h.caller({ token: b.token, limit: (action) => (action === 'passwordCheck' ? 42 : null) });
    const bOtherId = (await limited.security.sessions()).sessions.find((s) => !s.current)!.id;
    expect(await problemOf(limited.security.revokeOtherSessions({ current_password: STRONG }))).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfter: 42,
    });
    expect(
      await problemOf(limited.security.revokeSession({ session_id: bOtherId, current_password: STRONG })),
    ).toMatchObject({ status: 429, code: 'rate_limited' });
    await expect(h.caller({ token: bOther }).account.me()).resolves.toBeTruthy();
    // A sign-out of the caller's own session asks for no password and is not held by that limit.
    const bOwnId = (await limited.security.sessions()).sessions.find((s) => s.current)!.id;
    expect(await limited.security.revokeSession({ session_id: bOwnId })).toEqual({ ok: true, signedOut: true });
  });

  it('limits signed-in writes per account and per address, refusing before any write', async () => {
    const a = await registerUser(h);
    const other = await signInAgain(h, a.email);
    const asked: [string, string | undefined][] = [];
    const counting = h.caller({
      token: a.token,
      ip: '203.0.113.50',
      limit: (action, key) => {
        asked.push([action, key]);
        return null;
      },
    });
    await counting.security.changeName({ name: 'Counted' });
    const otherId = (await counting.security.sessions()).sessions.find((s) => !s.current)!.id;
    // Each write counts once for the address and once for the account.
    const writes = () => asked.filter(([action]) => action === 'accountWrite');
    expect(writes()).toHaveLength(2);
    const [byAddress, byAccount] = writes();
    expect(byAddress).toEqual(['accountWrite', undefined]);
    expect(byAccount![1]).toEqual(expect.stringContaining(a.user.id));
    const before = await typesOf(h, a.user.id);

    const refusals: [string, (action: string, key?: string) => number | null][] = [
      ['address', (action, key) => (action === 'accountWrite' && key === undefined ? 30 : null)],
      ['account', (action, key) => (action === 'accountWrite' && key !== undefined ? 30 : null)],
    ];
    for (const [which, limit] of refusals) {
      const c = h.caller({ token: a.token, limit });
      for (const call of [
        () => c.security.changeName({ name: 'Flood' }),
        () => c.security.revokeSession({ session_id: otherId, current_password: STRONG }),
        () => c.security.revokeOtherSessions({ current_password: STRONG }),
      ]) {
        expect(await problemOf(call()), which).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 30 });
      }
    }
    // Nothing written: the name, the other session and the events are as they were.
    expect((await counting.account.me()).user.name).toBe('Counted');
    await expect(h.caller({ token: other }).account.me()).resolves.toBeTruthy();
    expect(await typesOf(h, a.user.id)).toEqual(before);
    // The per-address count comes before the session is looked up: without one, it still counts.
    asked.length = 0;
    const anonymous = h.caller({
      limit: (action, key) => {
        asked.push([action, key]);
        return null;
      },
    });
    expect(await problemOf(anonymous.security.changeName({ name: 'X' }))).toMatchObject({ status: 401 });
    expect(asked).toEqual([['accountWrite', undefined]]);
  });

  it('counts every other signed-in write per account too: password change, deletion, a new verification link', async () => {
    const a = await registerUser(h);
    const full = (action: string, key?: string) => (action === 'accountWrite' && key !== undefined ? 30 : null);
    const c = h.caller({ token: a.token, limit: full });
    for (const call of [
      () => c.account.changePassword({ current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 }),
      () => c.security.deleteAccount({ current_password: STRONG }),
      () => c.email.resendVerification(),
    ]) {
      expect(await problemOf(call())).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 30 });
    }
    // Nothing changed: the password still works, the account is there.
    await expect(h.caller({ token: a.token }).account.me()).resolves.toBeTruthy();
    await h.caller({}).account.signIn({ email: a.email, password: STRONG });
  });

  it("hands out activity ids and cursors that are random per event, resolved only among the caller's own events", async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    const [{ realmId }] = (await h.db.db
      .select({ realmId: users.realmId })
      .from(users)
      .where(eq(users.id, a.user.id))) as [{ realmId: string }];
    // Events of another account written between the caller's leave no trace in what the caller gets.
    for (let i = 0; i < 30; i++) {
      await h.db.db.insert(accountEvents).values([
        { realmId, userId: a.user.id, type: 'signed_out' },
        { realmId, userId: b.user.id, type: 'signed_out' },
      ]);
    }
    const rows = await h.db.db
      .select()
      .from(accountEvents)
      .where(eq(accountEvents.userId, a.user.id))
      .orderBy(accountEvents.id);
    const internal = new Set(rows.map((r) => String(r.id)));
    const ca = h.caller({ token: a.token });
    const page = await ca.security.activity({});
    expect(page.events).toHaveLength(31);
    for (const e of page.events) {
      expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(internal.has(e.id)).toBe(false);
    }
    expect(page.events.map((e) => e.id)).toEqual(rows.map((r) => r.publicId).reverse());

    // A page boundary: the cursor is the last shown event's public id, nothing else.
    await h.db.db
      .insert(accountEvents)
      .values(Array.from({ length: 30 }, () => ({ realmId, userId: a.user.id, type: 'signed_out' })));
    const first = await ca.security.activity({});
    expect(first.nextCursor).toBe(cursorOf(first.events.at(-1)!.id));
    const next = await ca.security.activity({ cursor: first.nextCursor! });
    expect(next.events).toHaveLength(11);
    // b's cursors are unknown to a, and a's to b: the existing 422.
    const bEvent = (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, b.user.id)))[0]!;
    expect(await problemOf(ca.security.activity({ cursor: cursorOf(bEvent.publicId) }))).toMatchObject({
      status: 422,
      fields: { cursor: 'cursor_invalid' },
    });
    expect(
      await problemOf(h.caller({ token: b.token }).security.activity({ cursor: first.nextCursor! })),
    ).toMatchObject({ status: 422, fields: { cursor: 'cursor_invalid' } });
  });

  it("shows the account's own activity, newest first, failures marked, a page at a time", async () => {
    const a = await registerUser(h);
    const b = await registerUser(h);
    await h
      .caller({ ip: '203.0.113.9', userAgent: FIREFOX })
      .account.signIn({ email: a.email, password: 'not the password at all' })
      .catch(() => {});
    await h
      .caller({ ip: '203.0.113.9', userAgent: FIREFOX })
      .account.signIn({ email: b.email, password: 'not the password at all' })
      .catch(() => {});
    const ca = h.caller({ token: a.token });
    const first = await ca.security.activity({});
    expect(first.events.map((e) => e.type)).toEqual(['sign_in_failed', 'registered']);
    expect(first.events[0]).toMatchObject({
      failed: true,
      device: 'Firefox 128 on Windows 10',
      address: '203.0.113.x',
    });
    expect(first.events[1]!.failed).toBe(false);
    expect(first.nextCursor).toBeNull();
    expect(await ca.security.activity({ cursor: '' })).toEqual(first);

    // 60 more events: pages of 50, newest first, no event twice or missed.
    const [{ realmId }] = (await h.db.db
      .select({ realmId: users.realmId })
      .from(users)
      .where(eq(users.id, a.user.id))) as [{ realmId: string }];
    await h.db.db
      .insert(accountEvents)
      .values(Array.from({ length: 60 }, () => ({ realmId, userId: a.user.id, type: 'signed_out' })));
    const page1 = await ca.security.activity({});
    expect(page1.events).toHaveLength(50);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await ca.security.activity({ cursor: page1.nextCursor! });
    expect(page2.events).toHaveLength(12);
    expect(page2.nextCursor).toBeNull();
    const ids = [...page1.events, ...page2.events].map((e) => e.id);
    expect(new Set(ids).size).toBe(62);
    // Newest first: the reverse of the order they were written in.
    const written = await h.db.db
      .select({ publicId: accountEvents.publicId })
      .from(accountEvents)
      .where(eq(accountEvents.userId, a.user.id))
      .orderBy(accountEvents.id);
    expect(ids).toEqual(written.map((e) => e.publicId).reverse());
    expect(page2.events.at(-1)!.type).toBe('registered');

    // Another account sees none of it, and a's cursor is not one of b's.
    const cb = h.caller({ token: b.token });
    expect(await problemOf(cb.security.activity({ cursor: page1.nextCursor! }))).toMatchObject({
      status: 422,
      fields: { cursor: 'cursor_invalid' },
    });
    const bAll = await cb.security.activity({});
    expect(bAll.events.map((e) => e.type)).toEqual(['sign_in_failed', 'registered']);
    expect(bAll.events.filter((e) => ids.includes(e.id))).toEqual([]);

    for (const cursor of [
      '!!',
      'bm9wZQ',
      'x'.repeat(40),
      'ZTA',
      Buffer.from('e60').toString('base64url'),
      cursorOf('00000000-0000-4000-8000-000000000000'),
    ]) {
      expect(await problemOf(ca.security.activity({ cursor }))).toMatchObject({
        status: 422,
        fields: { cursor: 'cursor_invalid' },
      });
    }
    expect(await problemOf(h.caller().security.activity({}))).toMatchObject({ status: 401 });
  });

  it('says which sign-ins came from a device the account did not know, and names devices in the language asked', async () => {
    const a = await registerUser(h);
    // From a browser the account has never seen: a new device (its owner is mailed about it).
    const stranger = h.caller({ ip: '198.51.100.30', userAgent: FIREFOX });
    await stranger.account.signIn({ email: a.email, password: STRONG });
    // From the browser it registered in, which holds the known-device credential: no new device.
    const own = h.caller({ ip: '203.0.113.30', userAgent: SAFARI, device: a.device });
    await own.account.signIn({ email: a.email, password: STRONG });
    // A wrong password is no sign-in: it is never said to be one from a new device.
    await h
      .caller({ ip: '198.51.100.31', userAgent: FIREFOX })
      .account.signIn({ email: a.email, password: 'not the password at all' })
      .catch(() => {});

    const token = own.issued[0]!.token;
    const { events } = await h.caller({ token, locale: 'de' }).security.activity({});
    expect(events.map((e) => [e.type, e.device, e.newDevice])).toEqual([
      ['sign_in_failed', 'Firefox 128 unter Windows 10', undefined],
      ['signed_in', 'Mobile Safari 17 unter iOS 17.5', undefined],
      ['signed_in', 'Firefox 128 unter Windows 10', true],
      ['registered', null, undefined],
    ]);
    const fr = await h.caller({ token, locale: 'fr' }).security.activity({});
    expect(fr.events[0]!.device).toBe('Firefox 128 sous Windows 10');
    expect((await h.caller({ token }).security.activity({})).events[0]!.device).toBe('Firefox 128 on Windows 10');

    // The devices page says them in the same words.
    const { sessions: list } = await h.caller({ token, locale: 'fr' }).security.sessions();
    expect(list.map((s) => s.device)).toEqual(['Mobile Safari 17 sous iOS 17.5', 'Firefox 128 sous Windows 10', null]);
  });

  it('changes the name under the registration rules', async () => {
    const a = await registerUser(h);
    const ca = h.caller({ token: a.token });
    expect((await ca.security.changeName({ name: '  Grace   Hopper ' })).user).toMatchObject({
      id: a.user.id,
      name: 'Grace Hopper',
    });
    expect((await ca.account.me()).user.name).toBe('Grace Hopper');
    expect(await problemOf(ca.security.changeName({ name: 'a\u202eb' }))).toMatchObject({
      status: 422,
      fields: { name: 'name_invalid_chars' },
    });
    expect(await problemOf(ca.security.changeName({ name: '' }))).toMatchObject({
      status: 422,
      fields: { name: 'required' },
    });
    expect(await problemOf(ca.security.changeName({ name: 'x'.repeat(151) }))).toMatchObject({
      status: 422,
      fields: { name: 'name_too_long' },
    });
    expect(await typesOf(h, a.user.id)).toContain('name_changed');
  });

  it('deletes the account after the password check, keeps its events detached (its email as a digest), and frees the email', async () => {
    const a = await registerUser(h);
    const other = await signInAgain(h, a.email);
    const ca = h.caller({ token: a.token, device: a.device });
    expect(await problemOf(ca.security.deleteAccount({ current_password: 'not the password at all' }))).toMatchObject({
      status: 422,
      code: 'validation_failed',
      fields: { current_password: 'password_incorrect' },
    });
    expect(await problemOf(ca.security.deleteAccount({ current_password: '' }))).toMatchObject({
      status: 422,
      fields: { current_password: 'required' },
    });
    await expect(ca.account.me()).resolves.toBeTruthy();

    expect(await ca.security.deleteAccount({ current_password: STRONG })).toEqual({ ok: true });
    expect(ca.cleared).toBe(1);
    for (const t of [a.token, other])
      expect(await problemOf(h.caller({ token: t }).account.me())).toMatchObject({ status: 401 });
    expect(await h.db.db.select().from(users).where(eq(users.id, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(sessions).where(eq(sessions.userId, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(knownDevices).where(eq(knownDevices.userId, a.user.id))).toEqual([]);
    expect(await h.db.db.select().from(accountEvents).where(eq(accountEvents.lockoutKey, a.user.id))).toEqual([]);
    // Its security events stay for the retention window, failed attempts included: found by the
    // keyed digest of its email, with no link to the account (the person) beyond it.
    const kept = await h.db.db
      .select()
      .from(accountEvents)
      .where(
        eq(accountEvents.subjectDigest, subjectDigest(h.vault, (await findRealm(h.db.db, 'default'))!.id, a.email)),
      );
    expect(kept.map((e) => e.type)).toEqual(
      expect.arrayContaining(['registered', 'password_change_failed', 'account_deleted']),
    );
    for (const e of kept) expect(e).toMatchObject({ userId: null, lockoutKey: null, clientKey: null, pending: false });
    expect(JSON.stringify(kept)).not.toContain(a.email);

    // The email can be registered again, as a new account.
    const again = await registerUser(h, { email: a.email, password: STRONG2 });
    expect(again.user.id).not.toBe(a.user.id);
    expect(await problemOf(h.caller().account.signIn({ email: a.email, password: STRONG }))).toMatchObject({
      fields: { password: 'credentials_invalid' },
    });
  });

  it("counts wrong passwords at deletion with the password change's lockout", async () => {
    const a = await registerUser(h);
    const ca = h.caller({ token: a.token });
    const wrong = 'not the password at all';
    for (let i = 0; i < 3; i++)
      await problemOf(
        ca.account.changePassword({
          current_password: `${wrong} ${i}`,
          new_password: STRONG2,
          confirm_password: STRONG2,
        }),
      );
    for (let i = 0; i < 2; i++)
      expect((await problemOf(ca.security.deleteAccount({ current_password: `${wrong} ${i}` }))).status).toBe(422);
    expect(await problemOf(ca.security.deleteAccount({ current_password: STRONG }))).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
    });
    await expect(ca.account.me()).resolves.toBeTruthy();
  });

  it('disabled accounts: sessions end at once, sign-in answers as a wrong password, enabling restores sign-in', async () => {
    await h.realm('ops');
    const a = await registerUser(h, { realm: 'ops' });
    const second = h.caller({ realm: 'ops' });
    await second.account.signIn({ email: a.email, password: STRONG });
    const listed = await listAccounts(h.db.db, 'ops');
    expect(listed.find((r) => r.email === a.email)).toMatchObject({ disabledAt: null, sessions: 2 });

    expect(await disableAccount(h.db.db, 'ops', a.email, operatorMail(h))).toEqual({
      changed: true,
      revoked: 2,
      told: false,
    });
    expect(await disableAccount(h.db.db, 'ops', a.email, operatorMail(h))).toEqual({
      changed: false,
      revoked: 0,
      told: false,
    });
    expect(await problemOf(h.caller({ realm: 'ops', token: a.token }).account.me())).toMatchObject({ status: 401 });
    const right = await problemOf(
      h.caller({ realm: 'ops', ip: '198.51.100.70' }).account.signIn({ email: a.email, password: STRONG }),
    );
    const wrong = await problemOf(
      h
        .caller({ realm: 'ops', ip: '198.51.100.71' })
        .account.signIn({ email: a.email, password: 'not the password at all' }),
    );
    expect(right).toEqual(wrong);
    expect(right).toMatchObject({ status: 422, fields: { password: 'credentials_invalid' } });
    // A session that exists anyway is refused while the account is disabled.
    const [{ id }] = (await h.db.db.select({ id: users.id }).from(users).where(eq(users.id, a.user.id))) as [
      { id: string },
    ];
    const stray = await createSession(h.db.db, id, h.config);
    expect(await problemOf(h.caller({ realm: 'ops', token: stray.token }).account.me())).toMatchObject({ status: 401 });
    expect((await listAccounts(h.db.db, 'ops')).find((r) => r.email === a.email)!.disabledAt).toBeInstanceOf(Date);

    expect(await enableAccount(h.db.db, 'ops', a.email)).toEqual({ changed: true });
    await expect(h.caller({ realm: 'ops', token: stray.token }).account.me()).resolves.toBeTruthy();
    await h.caller({ realm: 'ops', ip: '198.51.100.72' }).account.signIn({ email: a.email, password: STRONG });
    expect(await revokeAccountSessions(h.db.db, 'ops', a.email)).toBe(2);
    expect(await problemOf(h.caller({ realm: 'ops', token: stray.token }).account.me())).toMatchObject({ status: 401 });
    expect(await typesOf(h, a.user.id)).toEqual(
      expect.arrayContaining(['account_disabled', 'account_enabled', 'sessions_revoked', 'sign_in_failed']),
    );
    await expect(disableAccount(h.db.db, 'ops', 'nobody@example.com', operatorMail(h))).rejects.toThrow(
      'There is no account nobody@example.com in realm "ops".',
    );
    await expect(listAccounts(h.db.db, 'nope')).rejects.toThrow('There is no realm "nope".');
  });
});
