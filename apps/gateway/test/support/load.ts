import { accountEvents, users, type Database } from '@accounts/db';
import { and, eq, sql } from 'drizzle-orm';
import { registration, STRONG, uniqueEmail } from './gateway.js';
import type { Client } from '@accounts/testing';

export interface Outcome {
  email: string;
  status: number;
  error?: string;
  ms: number;
  /** What opts.label() said when the request was sent (a test's phase). */
  label?: string;
}

/**
 * Keeps `workers` registrations in flight until `done()` says stop (or `max` were sent in all),
 * and returns every outcome: the status, or 0 and the error when the connection failed.
 */
export async function registrationLoad(
  client: Client,
  opts: {
    workers: number;
    done: () => boolean;
    max?: number;
    tag?: string;
    pauseMs?: number;
    label?: () => string;
    onOutcome?: (o: Outcome) => void;
  },
): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const max = opts.max ?? 5000;
  const worker = async () => {
    while (!opts.done() && out.length < max) {
      const email = uniqueEmail(opts.tag ?? 'load');
      const [t0, label] = [performance.now(), opts.label?.()];
      const res = await client.form('/users/register', registration(email));
      const outcome = { email, status: res.status, error: res.error, ms: performance.now() - t0, label };
      out.push(outcome);
      opts.onOutcome?.(outcome);
      if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, worker));
  return out;
}

/** Signs in with the registration password: 200 when the account is there. */
export const canSignIn = async (client: Client, email: string, password = STRONG) =>
  (await client.form('/users/login', { email, password })).status;

/**
 * Users whose registration is only partly stored: the user row, its first session and its
 * 'registered' event are written in one transaction, so a row without the event is torn.
 */
export async function halfWritten(db: Database): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .leftJoin(accountEvents, and(eq(accountEvents.userId, users.id), eq(accountEvents.type, 'registered')))
    .where(sql`${accountEvents.id} is null`);
  return rows.map((r) => r.email);
}

export async function emailsIn(db: Database): Promise<Set<string>> {
  return new Set((await db.select({ email: users.email }).from(users)).map((r) => r.email));
}
