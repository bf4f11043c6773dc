import { randomBytes } from 'node:crypto';
import { eq, sql, type SQL } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountEvents, auditSettings, openDatabase, realms, users, type DatabaseHandle } from '../src/index.js';
import {
  createTempDatabase,
  createTestDatabase,
  testDrivers,
  type TempDatabase,
  type TestDatabase,
} from '../src/testing.js';

// Account events are an audit trail (migration 0009): a settled event is never changed or
// deleted, except by the retention purge's function; a pending password-check claim may settle
// once or be withdrawn; a deleted account's events may be detached from it.

const refusedBy = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as { cause?: { code?: string; message?: string }; code?: string; message?: string } | null;
  expect(err, 'expected the statement to be refused').not.toBeNull();
  return `${err!.cause?.code ?? err!.code ?? ''} ${err!.cause?.message ?? err!.message ?? ''}`;
};

describe.each(testDrivers())('the events table on %s', (driver) => {
  let h: TestDatabase;
  let realmId: string;
  beforeAll(async () => {
    h = await createTestDatabase(driver);
    realmId = (await h.db.select().from(realms).where(eq(realms.slug, 'default')))[0]!.id;
  });
  afterAll(() => h.close());

  const insert = async (values: Partial<typeof accountEvents.$inferInsert> = {}) =>
    (
      await h.db
        .insert(accountEvents)
        .values({ realmId, type: 'sign_in_failed', ...values })
        .returning()
    )[0]!;

  it('refuses to change or delete a settled event, even for the table owner, outside the purge', async () => {
    const e = await insert({ clientIp: '203.0.113.1' });
    expect(
      await refusedBy(h.db.update(accountEvents).set({ type: 'signed_in' }).where(eq(accountEvents.id, e.id))),
    ).toMatch(/42501.*append-only/);
    expect(
      await refusedBy(h.db.update(accountEvents).set({ clientIp: null }).where(eq(accountEvents.id, e.id))),
    ).toMatch(/append-only/);
    expect(await refusedBy(h.db.delete(accountEvents).where(eq(accountEvents.id, e.id)))).toMatch(/append-only/);
    // (The table's owner could drop the trigger as well; what holds the serving role is below.)
  });

  it('lets a claim settle or be withdrawn, and a deleted account be detached, nothing more', async () => {
    const claim = await insert({ pending: true, lockoutKey: 'k', clientKey: 'a:203.0.113.2' });
    await h.db.update(accountEvents).set({ type: 'signed_in', pending: false }).where(eq(accountEvents.id, claim.id));
    expect(
      await refusedBy(h.db.update(accountEvents).set({ pending: true }).where(eq(accountEvents.id, claim.id))),
    ).toMatch(/append-only/);
    const withdrawn = await insert({ pending: true });
    await h.db.delete(accountEvents).where(eq(accountEvents.id, withdrawn.id));
    expect(await h.db.select().from(accountEvents).where(eq(accountEvents.id, withdrawn.id))).toEqual([]);
  });

  const rowsOf = (result: unknown) =>
    (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as { n: number }[];
  const purge = async (cutoff: SQL, batch = 1000) =>
    Number(rowsOf(await h.db.execute(sql`select accounts_purge_events(${cutoff}, ${batch}) as n`))[0]!.n);

  it('the purge function deletes events older than the retention setting, never younger, whatever the cutoff', async () => {
    const old = await insert({ type: 'signed_out', createdAt: sql`now() - interval '91 days'` as unknown as Date });
    const recent = await insert({ type: 'signed_out', createdAt: sql`now() - interval '2 days'` as unknown as Date });
    const fresh = await insert({ type: 'sign_in_failed', lockoutKey: 'k2' });
    // A cutoff in the future (or at any recent time) is clamped to the retention setting (90 days).
    expect(await purge(sql`now() + interval '1 day'`)).toBe(1);
    const left = (await h.db.select({ id: accountEvents.id }).from(accountEvents)).map((r) => r.id);
    expect(left).not.toContain(old.id);
    expect(left).toEqual(expect.arrayContaining([recent.id, fresh.id]));
    // A shorter setting (the owner's, written at start-up) lets older events go, but never a day's failures.
    await h.db.update(auditSettings).set({ eventRetentionDays: 1 });
    try {
      expect(await purge(sql`now() + interval '1 day'`)).toBe(1);
      const after = (await h.db.select({ id: accountEvents.id }).from(accountEvents)).map((r) => r.id);
      expect(after).toContain(fresh.id);
      expect(after).not.toContain(recent.id);
    } finally {
      await h.db.update(auditSettings).set({ eventRetentionDays: 90 });
    }
  });

  it("refuses to detach a live account's events; detaches them when the account goes in the same transaction", async () => {
    const [user] = await h.db
      .insert(users)
      .values({ realmId, name: 'Ada', email: `ada-${randomBytes(3).toString('hex')}@example.com`, passwordHash: 'x' })
      .returning();
    const e = await insert({ type: 'signed_in', userId: user!.id, lockoutKey: user!.id });
    expect(
      await refusedBy(
        h.db.update(accountEvents).set({ userId: null, lockoutKey: null }).where(eq(accountEvents.id, e.id)),
      ),
    ).toMatch(/42501.*live account/);
    await h.db.transaction(async (tx) => {
      await tx
        .update(accountEvents)
        .set({ userId: null, lockoutKey: null, subjectDigest: 'digest' })
        .where(eq(accountEvents.id, e.id));
      await tx.delete(users).where(eq(users.id, user!.id));
    });
    const [kept] = await h.db.select().from(accountEvents).where(eq(accountEvents.id, e.id));
    expect(kept).toMatchObject({ userId: null, lockoutKey: null, subjectDigest: 'digest', type: 'signed_in' });
  });
});

// The least-privilege serving role of docs/operations.md ("Database roles"): the schema belongs to
// a migration role (DATABASE_MIGRATION_URL); the serving role (DATABASE_URL) has data access only.
describe.runIf(process.env.TEST_DATABASE_URL)('a least-privilege serving role on PostgreSQL', () => {
  const suffix = randomBytes(4).toString('hex');
  const owner = `accounts_owner_${suffix}`;
  const serving = `accounts_app_${suffix}`;
  let temp: TempDatabase;
  let admin: ReturnType<typeof postgres>;
  let server: ReturnType<typeof postgres>;
  let app: DatabaseHandle;
  const urlAs = (role: string) => {
    const url = new URL(temp.url);
    url.username = role;
    url.password = 'test-only-password';
    return url.toString();
  };

  beforeAll(async () => {
    temp = await createTempDatabase();
    admin = postgres(temp.url, { max: 1, onnotice: () => {} });
    server = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    const database = new URL(temp.url).pathname.slice(1);
    await server.unsafe(`create role ${owner} login password 'test-only-password'`);
    await server.unsafe(`create role ${serving} login password 'test-only-password'`);
    await admin.unsafe(`grant connect, create, temporary on database "${database}" to ${owner}`);
    await admin.unsafe(`alter schema public owner to ${owner}`);
    // Migrations as the owner (what DATABASE_MIGRATION_URL names).
    const migrating = await openDatabase({ url: urlAs(owner), poolSize: 1, hearChanges: false });
    await migrating.migrate();
    await migrating.close();
    // The serving role's grants, as docs/operations.md lists them.
    for (const grant of [
      `grant connect on database "${database}" to ${serving}`,
      `grant usage on schema public to ${serving}`,
      `grant select, insert, update, delete on all tables in schema public to ${serving}`,
      `grant usage, select on all sequences in schema public to ${serving}`,
      `grant execute on function accounts_purge_events(timestamptz, integer) to ${serving}`,
    ])
      await admin.unsafe(grant);
    app = await openDatabase({ url: urlAs(serving), poolSize: 2, hearChanges: false });
  });
  afterAll(async () => {
    await app?.close();
    await admin?.end();
    await temp?.drop();
    await server.unsafe(`drop role if exists ${serving}`);
    await server.unsafe(`drop role if exists ${owner}`);
    await server.end();
  });

  it('cannot change or delete events, even with the purge flag set by hand, nor change the schema; the purge function still works', async () => {
    const [realm] = await app.db.select().from(realms).where(eq(realms.slug, 'default'));
    const [e] = await app.db
      .insert(accountEvents)
      .values({ realmId: realm!.id, type: 'sign_in_failed', clientIp: '203.0.113.9' })
      .returning();
    expect(
      await refusedBy(app.db.update(accountEvents).set({ clientIp: null }).where(eq(accountEvents.id, e!.id))),
    ).toMatch(/append-only/);
    expect(await refusedBy(app.db.delete(accountEvents).where(eq(accountEvents.id, e!.id)))).toMatch(/append-only/);
    expect(
      await refusedBy(
        app.db.transaction(async (tx) => {
          await tx.execute(sql`select set_config('accounts.event_purge', 'on', true)`);
          await tx.delete(accountEvents).where(eq(accountEvents.id, e!.id));
        }),
      ),
    ).toMatch(/append-only/);
    expect(
      await refusedBy(app.db.execute(sql`alter table account_events disable trigger account_events_append_only`)),
    ).toMatch(/42501|must be owner/);
    expect(await refusedBy(app.db.execute(sql`drop table account_events`))).toMatch(/42501|must be owner/);
    expect(await refusedBy(app.db.execute(sql`create table scratch (id int)`))).toMatch(/42501|permission denied/);
    // The retention purge, through its function, deletes what is old enough and nothing younger,
    // whatever cutoff the serving role passes.
    const [old] = await app.db
      .insert(accountEvents)
      .values({
        realmId: realm!.id,
        type: 'signed_out',
        createdAt: sql`now() - interval '100 days'`,
      })
      .returning();
    await app.db.execute(sql`select accounts_purge_events(now() + interval '1 day', 100)`);
    const left = (await app.db.select({ id: accountEvents.id }).from(accountEvents)).map((r) => r.id);
    expect(left).toContain(e!.id);
    expect(left).not.toContain(old!.id);
  });

  it("cannot shorten the retention, nor detach a live account's events", async () => {
    expect(await refusedBy(app.db.update(auditSettings).set({ eventRetentionDays: 1 }))).toMatch(
      /42501.*owner of the schema/,
    );
    expect(await refusedBy(app.db.delete(auditSettings))).toMatch(/42501/);
    const [realm] = await app.db.select().from(realms).where(eq(realms.slug, 'default'));
    const [user] = await app.db
      .insert(users)
      .values({ realmId: realm!.id, name: 'Ada', email: 'ada-roles@example.com', passwordHash: 'x' })
      .returning();
    const [e] = await app.db
      .insert(accountEvents)
      .values({ realmId: realm!.id, type: 'signed_in', userId: user!.id, lockoutKey: user!.id })
      .returning();
    expect(
      await refusedBy(
        app.db.update(accountEvents).set({ userId: null, lockoutKey: null }).where(eq(accountEvents.id, e!.id)),
      ),
    ).toMatch(/42501.*live account/);
    expect(
      await refusedBy(
        app.db.transaction(async (tx) => {
          await tx.execute(sql`set constraints all immediate`);
          await tx.update(accountEvents).set({ userId: null }).where(eq(accountEvents.id, e!.id));
        }),
      ),
    ).toMatch(/42501.*live account/);
    // Nor by giving the account a new id, so that its old one is "gone".
    expect(
      await refusedBy(
        app.db.transaction(async (tx) => {
          await tx.update(accountEvents).set({ userId: null }).where(eq(accountEvents.id, e!.id));
          await tx.execute(sql`update users set id = gen_random_uuid() where id = ${user!.id}`);
        }),
      ),
    ).toMatch(/42501.*(id never changes|live account)/);
    const [still] = await app.db.select().from(accountEvents).where(eq(accountEvents.id, e!.id));
    expect(still?.userId).toBe(user!.id);
  });
});
