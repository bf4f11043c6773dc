import { inspect } from 'node:util';
import { PROBLEM_STATUS, trpcCodeOf } from '@accounts/api';
import { accountEvents, sessions, users, type Database } from '@accounts/db';
import { notInArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Response } from './gateway.js';

/** The statuses the HTTP contract documents for the account routes. */
export const DOCUMENTED = new Set([200, 201, 400, 401, 403, 404, 409, 413, 415, 422, 429, 503]);

// Traces, file positions and internal error names must never reach a client in an error.
const LEAK =
  /\bat [^"]*:\d+:\d+|node_modules|\.(ts|js|mjs):\d+|TypeError|ReferenceError|DrizzleQueryError|PostgresError|\bstack\b/;

/** Checks a documented problem: the status line, the body's status and the registry agree. */
export function expectProblem(problem: unknown, status: number, what: string) {
  expect(problem, what).toMatchObject({
    type: 'about:blank',
    status,
    title: expect.any(String),
    code: expect.any(String),
  });
  // An object with a string code: checked just above.
  const { code } = problem as { code: string };
  expect(PROBLEM_STATUS[code as keyof typeof PROBLEM_STATUS], `${what}: code ${code}`).toBe(status);
}

/** A form-route answer: documented status, no leak, problem+json for every error. */
export function expectCleanFormAnswer(res: Response, what: string) {
  expect(DOCUMENTED.has(res.status), `${what}: status ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
  if (res.status >= 400) {
    expect(res.text, what).not.toMatch(LEAK);
    expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
    expectProblem(res.json, res.status, what);
  } else {
    expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  }
}

/** A /trpc answer: documented status, JSON, and for an error the tRPC envelope carrying the problem. */
export function expectCleanTrpcAnswer(res: Response, what: string, extra: number[] = [], method = 'POST') {
  expect(
    DOCUMENTED.has(res.status) || extra.includes(res.status),
    `${what}: status ${res.status} ${res.text.slice(0, 200)}`,
  ).toBe(true);
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  // A HEAD answer has no body: nothing under /trpc serves HEAD, so it is refused (405, or 404 for an unknown realm).
  if (method === 'HEAD') {
    expect([404, 405], what).toContain(res.status);
    expect(res.text, what).toBe('');
    return;
  }
  if (res.status >= 400) {
    expect(res.text, what).not.toMatch(LEAK);
    expect(res.json?.error?.data?.problem, `${what}: ${res.text.slice(0, 200)}`).toBeDefined();
    expectProblem(res.json.error.data.problem, res.status, what);
    // One shape: data.code is always the tRPC code of the status, whatever refused the call.
    expect(res.json.error.data.code, what).toBe(trpcCodeOf(res.status));
    expect(res.json.error.data.stack, what).toBeUndefined();
  } else {
    expect(res.json, what).toHaveProperty('result');
  }
}

export interface RowCounts {
  users: number;
  sessions: number;
  events: number;
}

/**
 * Rows in the tables a request can write, to prove a refused one wrote nothing. The records of
 * refusals themselves (plugins/refusals.ts: written after the answer, bounded per client) are the
 * audit trail of the refusal, not something the request did: they are left out.
 */
export async function countRows(db: Database): Promise<RowCounts> {
  const n = sql<number>`count(*)::int`;
  const [[u], [s], [e]] = await Promise.all([
    db.select({ n }).from(users),
    db.select({ n }).from(sessions),
    db
      .select({ n })
      .from(accountEvents)
      .where(notInArray(accountEvents.type, ['rate_limited', 'cross_origin_refused', 'token_invalid'])),
  ]);
  return { users: u!.n, sessions: s!.n, events: e!.n };
}

/** Runs a property over generated values; a failure reports a short counterexample and the seed. */
export async function assertProperty<T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>, numRuns: number) {
  const out = await fc.check(fc.asyncProperty(arb, check), { numRuns, endOnFailure: true });
  if (!out.failed) return;
  const example = inspect(out.counterexample?.[0], { maxStringLength: 300, maxArrayLength: 80, breakLength: 200 });
  throw new Error(
    `failed after ${out.numRuns} runs (seed ${out.seed}): ${example}\n${String(out.errorInstance).slice(0, 2000)}`,
  );
}
