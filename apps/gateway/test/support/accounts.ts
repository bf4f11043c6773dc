import { DEFAULT_ACCOUNT_CONFIG, MAX_SESSIONS_PER_ACCOUNT } from '@accounts/api';
import { createSession } from '@accounts/api/testing';
import { sessions, users, type Database } from '@accounts/db';
import type { Driver } from '@accounts/db';
import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { registration, startGateway, uniqueEmail, type Gateway } from './gateway.js';

/** A live session for a user, made by the service's own session code, so a fuzz run can hold one without a sign-in. */
export async function mintSession(db: Database, userId: string): Promise<string> {
  return (await createSession(db, userId, DEFAULT_ACCOUNT_CONFIG)).token;
}

/**
 * Ends every session of the account once it nears the cap of sessions per account, so that a
 * test counting the sessions a request adds sees one (at the cap, a new one ends the oldest).
 */
export async function keepUnderSessionCap(db: Database, userId: string) {
  if ((await sessionCount(db, userId)) >= MAX_SESSIONS_PER_ACCOUNT - 5)
    await db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function userByEmail(db: Database, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email.toLowerCase()));
  return user;
}

export async function sessionCount(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(sessions)
    .where(eq(sessions.userId, userId));
  return row!.n;
}

/**
 * A gateway for fuzzing, with one registered account (the owner): per-address limits and the
 * account lock are raised so generated traffic reaches validation (both have tests of their own).
 */
export async function startFuzzTarget(driver: Driver): Promise<{ gw: Gateway; ownerEmail: string; ownerId: string }> {
  const gw = await startGateway(driver, {
    RATE_LIMIT_REGISTER: '1000000',
    RATE_LIMIT_SIGN_IN: '1000000',
    RATE_LIMIT_CHANGE_PASSWORD: '1000000',
    ACCOUNT_MAX_FAILURES: '1000',
  });
  const ownerEmail = uniqueEmail('owner');
  expect((await gw.form('/users/register', registration(ownerEmail))).status).toBe(201);
  return { gw, ownerEmail, ownerId: (await userByEmail(gw.db.db, ownerEmail))!.id };
}
