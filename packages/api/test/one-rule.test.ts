import { createHash } from 'node:crypto';
import { sessions } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { toProblem } from '../src/kernel/errors.js';
import { purgeExpired } from '../src/operator/retention.js';
import { createAppRouter } from '../src/router.js';
import type { ProcedureMeta } from '../src/kernel/context.js';
import { registerUser, useHarness } from './harness.js';

// Rules that several places read: each place must answer as the rule's one home says.

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => toProblem(err, 'en').status,
  );

describe.each(testDrivers())('one rule of a live session on %s', (driver) => {
  // An idle limit that is no whole number of seconds: a copy of the rule that rounds tells itself apart.
  // Long enough that the sessions the test keeps never idle out on a slow machine (idleFor ages the others).
  const IDLE_MS = 10 * 60_000 + 500;
  const h = useHarness(driver, { sessionIdleMs: IDLE_MS });
  const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
  const idleFor = (token: string, ms: number) =>
    h.db.db
      .update(sessions)
      .set({ lastSeenAt: sql`now() - ${ms}::integer * interval '1 millisecond'` })
      .where(eq(sessions.tokenHash, hashOf(token)));

  it('the purge deletes exactly the sessions the session check refuses, and the security page lists exactly the ones it accepts', async () => {
    const { token, email, password, user } = await registerUser(h);
    const other = h.caller();
    await other.account.signIn({ email, password });
    const idle = other.issued[0]!.token;
    const expired = h.caller();
    await expired.account.signIn({ email, password });
    const gone = expired.issued[0]!.token;

    await idleFor(idle, IDLE_MS + 100);
    await h.db.db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.tokenHash, hashOf(gone)));
    expect(await status(h.caller({ token: idle }).account.me())).toBe(401);
    expect(await status(h.caller({ token: gone }).account.me())).toBe(401);

    const listed = await h.caller({ token }).security.sessions();
    expect(listed.sessions).toHaveLength(1);
    await purgeExpired(h.db.db, h.config, { eventRetentionMs: 90 * 86_400_000 });
    const left = await h.db.db
      .select({ tokenHash: sessions.tokenHash })
      .from(sessions)
      .where(eq(sessions.userId, user.id));
    expect(left.map((s) => s.tokenHash)).toEqual([hashOf(token)]);
    expect(await status(h.caller({ token }).account.me())).toBe(200);
  });
});

describe.each(testDrivers())('procedures that need a session on %s', (driver) => {
  const h = useHarness(driver);

  it('carry authenticated in their meta exactly when they answer 401 unauthenticated to a caller without a session', async () => {
    // Keyed by path ('account.me'), as tRPC keeps them.
    const procedures = createAppRouter(h.config)._def.procedures as unknown as Record<
      string,
      { _def: { meta?: ProcedureMeta } }
    >;
    const caller = h.caller() as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
    const seen: Record<string, { meta: boolean; unauthenticated: boolean }> = {};
    for (const [path, procedure] of Object.entries(procedures)) {
      const [group, name] = path.split('.') as [string, string];
      // Other 401s (a sign-in's second step without its pending sign-in) are not about a session.
      const answer = await caller[group]![name]!({}).then(
        () => null,
        (err: unknown) => toProblem(err, 'en').code,
      );
      seen[path] = { meta: procedure._def.meta?.authenticated === true, unauthenticated: answer === 'unauthenticated' };
    }
    expect(Object.values(seen).filter((s) => s.unauthenticated).length).toBeGreaterThan(5);
    for (const [path, s] of Object.entries(seen))
      expect({ path, authenticated: s.meta }).toEqual({ path, authenticated: s.unauthenticated });
  });
});
