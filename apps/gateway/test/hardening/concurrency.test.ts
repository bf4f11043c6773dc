import { setTimeout as sleep } from 'node:timers/promises';
import { sessions, users } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCount, userByEmail } from '../support/accounts.js';
import { registration, startGateway, STRONG, STRONG2, uniqueEmail, type Gateway } from '../support/gateway.js';

// Races over HTTP. On PostgreSQL the requests really run side by side; on PGlite the same
// rules must hold with its single connection. bcrypt cost 8 makes each hash take a few tens
// of milliseconds, so the requests overlap where it matters: between check and write.
const THIRD = 'amber meadow whistles past noon';
const change = (current: string, next: string) => ({
  current_password: current,
  new_password: next,
  confirm_password: next,
});

describe.each(testDrivers())('concurrent requests on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver, { BCRYPT_COST: '8', HASH_WORKERS: '2' });
  });
  afterAll(() => gw?.close());

  const rowsWithEmail = async (email: string) =>
    (
      await gw.db.db
        .select({ n: sql<number>`count(*)::int` })
        .from(users)
        .where(eq(users.email, email))
    )[0]!.n;

  it('lets exactly one of 50 concurrent registrations of one email through (201), the rest 409', async () => {
    const email = uniqueEmail('race');
    // Different spellings of the one address, as different clients would type it.
    const spellings = [email, email.toUpperCase(), ` ${email}`, `${email}\t`];
    const all = await Promise.all(
      Array.from({ length: 50 }, (_, i) => gw.form('/users/register', registration(spellings[i % 4]))),
    );
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of all.filter((x) => x.status === 409))
      expect(r.json).toMatchObject({ code: 'email_taken', errors: [{ field: 'email', code: 'email_taken' }] });
    expect(await rowsWithEmail(email)).toBe(1);
  });

  it('registers one email concurrently in two realms: one account in each', async () => {
    const email = uniqueEmail('tworealms');
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        gw.form('/users/register', registration(email), { host: i % 2 ? 'acme.localhost' : 'localhost' }),
      ),
    );
    const created = all
      .filter((r) => r.status === 201)
      .map((r) => r.json.user.realm)
      .sort();
    expect(created).toEqual(['acme', 'default']);
    expect(all.filter((r) => r.status !== 201).every((r) => r.status === 409)).toBe(true);
    expect(await rowsWithEmail(email)).toBe(2);
  });

  it(
    'lets one of two concurrent changes from the same current password win; the other gets 422 password_incorrect',
    { timeout: 60_000 },
    async () => {
      for (let round = 0; round < 8; round++) {
        const email = uniqueEmail('twochanges');
        const a = await gw.form('/users/register', registration(email));
        const b = await gw.form('/users/login', { email, password: STRONG });
        const bystander = await gw.form('/users/login', { email, password: STRONG });
        const [ra, rb] = await Promise.all([
          gw.form('/users/change_password', change(STRONG, STRONG2), { headers: { cookie: a.cookie! } }),
          gw.form('/users/change_password', change(STRONG, THIRD), { headers: { cookie: b.cookie! } }),
        ]);
        const statuses = [ra.status, rb.status].sort();
        expect(statuses, `round ${round}`).toEqual([200, 422]);
        const [winner, loser] = ra.status === 200 ? [ra, rb] : [rb, ra];
        const [won, lost] = ra.status === 200 ? [STRONG2, THIRD] : [THIRD, STRONG2];
        expect(loser.json).toMatchObject({
          code: 'validation_failed',
          errors: [{ field: 'current_password', code: 'password_incorrect' }],
        });
        // Only the winner's rotated session is left; the loser's and the bystander's are gone.
        const user = (await userByEmail(gw.db.db, email))!;
        expect(await sessionCount(gw.db.db, user.id)).toBe(1);
        expect((await gw.send('GET', '/users/me', { headers: { cookie: winner.cookie! } })).status).toBe(200);
        for (const dead of [a.cookie, b.cookie, bystander.cookie])
          expect((await gw.send('GET', '/users/me', { headers: { cookie: dead! } })).status).toBe(401);
        expect((await gw.form('/users/login', { email, password: lost })).status).toBe(422);
        expect((await gw.form('/users/login', { email, password: won })).status).toBe(200);
      }
    },
  );

  it('never leaves a live session made with the old password after a racing change', { timeout: 90_000 }, async () => {
    // Either order is fine and neither is required (the exact interleaving is forced in the
    // api's tests); what must hold in every round is that no old-password session survives.
    for (let i = 0; i < 40; i++) {
      const email = uniqueEmail('signinrace');
      const reg = await gw.form('/users/register', registration(email));
      // The sign-in starts 0–39 ms after the change, sweeping across the change's commit.
      const changing = gw.form('/users/change_password', change(STRONG, STRONG2), { headers: { cookie: reg.cookie! } });
      const signingIn = sleep(i).then(() => gw.form('/users/login', { email, password: STRONG }));
      const [changed, signedIn] = await Promise.all([changing, signingIn]);
      expect(changed.status, `round ${i}`).toBe(200);
      expect([200, 422], `round ${i}`).toContain(signedIn.status);
      if (signedIn.status === 200) {
        // It happened before the change, so the change revoked it.
        expect(
          (await gw.send('GET', '/users/me', { headers: { cookie: signedIn.cookie! } })).status,
          `round ${i}`,
        ).toBe(401);
      } else {
        expect(signedIn.json.errors).toEqual([
          { field: 'password', code: 'credentials_invalid', message: expect.any(String) },
        ]);
      }
      const user = (await userByEmail(gw.db.db, email))!;
      const live = await gw.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
      expect(live, `round ${i}`).toHaveLength(1);
    }
  });
});
