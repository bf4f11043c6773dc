import {
  authChangesOf,
  openDatabase,
  sessions,
  users,
  type AuthChange,
  type AuthChangeFeed,
  type Session,
  type User,
} from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findRealm } from '../src/records/realms.js';
import { SessionCache } from '../src/records/session-cache.js';
import { findSession } from '../src/records/sessions.js';
import { registerUser, useHarness } from './harness.js';

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each(testDrivers())('remembered session checks on %s', (driver) => {
  const h = useHarness(driver);
  const check = async (token: string, db = h.db.db) =>
    findSession(db, token, (await findRealm(h.db.db, 'default'))!.id, h.config);

  it('hears every change made behind the api’s back before the next check', async () => {
    const feed = authChangesOf(h.db.db)!;
    expect(feed.live).toBe(true);
    const a = await registerUser(h);
    const b = await registerUser(h);
    const c = await registerUser(h);
    const d = await registerUser(h);
    for (const u of [a, b, c, d]) expect((await check(u.token))?.user.id).toBe(u.user.id);
    // Asked twice: the second answer may come from memory, and must be the same.
    expect((await check(a.token))?.user.id).toBe(a.user.id);

    await h.db.db.execute(sql`delete from sessions where user_id = ${a.user.id}`);
    expect(await check(a.token)).toBeNull();
    await h.db.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, b.user.id));
    expect(await check(b.token)).toBeNull();
    // An idle limit reached by moving the last use back: refused at once, not after the minute.
    await h.db.db
      .update(sessions)
      .set({ lastSeenAt: sql`now() - interval '400 days'` })
      .where(eq(sessions.userId, c.user.id));
    expect(await check(c.token)).toBeNull();
    // Inside a statement that reads as something else.
    await h.db.db.execute(
      sql`with gone as (delete from sessions where user_id = ${d.user.id} returning 1) select count(*) from gone`,
    );
    expect(await check(d.token)).toBeNull();
  });

  it('answers with the account as it is now after a change of name', async () => {
    const u = await registerUser(h, { name: 'Before Name' });
    expect((await check(u.token))?.user.name).toBe('Before Name');
    await h.db.db.transaction(async (tx) => {
      await tx.update(users).set({ name: 'After Name' }).where(eq(users.id, u.user.id));
    });
    expect((await check(u.token))?.user.name).toBe('After Name');
  });

  // Only PostgreSQL has other instances and operators writing while this one runs.
  if (driver !== 'postgres') return;

  it('hears another instance’s and an operator’s changes within moments', async () => {
    const other = await openDatabase({ url: h.db.url!, poolSize: 2 });
    const operator = await openDatabase({ url: h.db.url!, poolSize: 1 });
    try {
      const a = await registerUser(h);
      const b = await registerUser(h);
      for (const u of [a, b]) {
        expect(await check(u.token)).not.toBeNull();
        expect(await check(u.token, other.db)).not.toBeNull();
      }
      await other.db.delete(sessions).where(eq(sessions.userId, a.user.id));
      await until('the other instance’s revocation to be heard', async () => (await check(a.token)) === null, 2_000);
      await operator.db.execute(sql`update users set disabled_at = now() where id = ${b.user.id}`);
      await until('the operator’s change to be heard', async () => (await check(b.token, other.db)) === null, 2_000);
      await until('the operator’s change to be heard here too', async () => (await check(b.token)) === null, 2_000);
    } finally {
      await operator.close();
      await other.close();
    }
  });

  it('remembers nothing while it cannot hear changes, and hears them again after', async () => {
    const feed = authChangesOf(h.db.db)!;
    const heard: AuthChange[] = [];
    const stop = feed.subscribe((change) => heard.push(change));
    const operator = await openDatabase({ url: h.db.url!, poolSize: 1 });
    try {
      const u = await registerUser(h);
      expect(await check(u.token)).not.toBeNull();
      await operator.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
      );
      // Down (forget everything), then listening again.
      await until('the feed to go down and come back', () => heard.filter((c) => 'all' in c).length >= 2 && feed.live);
      await operator.db.execute(sql`delete from sessions where user_id = ${u.user.id}`);
      await until('the revocation to be heard after reconnecting', async () => (await check(u.token)) === null, 2_000);
    } finally {
      stop();
      await operator.close();
    }
  });
});

describe('the session cache', () => {
  const feed = () => {
    const listeners = new Set<(c: AuthChange) => void>();
    return {
      live: true as boolean,
      subscribe: (l: (c: AuthChange) => void) => (listeners.add(l), () => void listeners.delete(l)),
      emit: (c: AuthChange) => listeners.forEach((l) => l(c)),
      close: async () => {},
    } satisfies AuthChangeFeed & { emit(c: AuthChange): void };
  };
  const found = (userId: string) => ({ session: { id: `s-${userId}` } as Session, user: { id: userId } as User });

  it('drops only the changed accounts’ entries, and everything on "all"', () => {
    const f = feed();
    const cache = new SessionCache(f);
    cache.put('k1', found('u1'), 60_000, cache.generation());
    cache.put('k2', found('u2'), 60_000, cache.generation());
    f.emit({ userIds: ['u1'] });
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k2')?.user.id).toBe('u2');
    f.emit({ all: true });
    expect(cache.get('k2')).toBeUndefined();
  });

  it('keeps no answer read across a change, none past its lifetime, and serves none while not live', async () => {
    const f = feed();
    const cache = new SessionCache(f);
    const before = cache.generation();
    f.emit({ userIds: ['someone else'] });
    cache.put('k1', found('u1'), 60_000, before);
    expect(cache.get('k1')).toBeUndefined();

    cache.put('k2', found('u2'), 20, cache.generation());
    expect(cache.get('k2')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('k2')).toBeUndefined();

    cache.put('k3', found('u3'), 60_000, cache.generation());
    f.live = false;
    expect(cache.get('k3')).toBeUndefined();
    cache.put('k4', found('u4'), 60_000, cache.generation());
    f.live = true;
    expect(cache.get('k4')).toBeUndefined();
  });
});
