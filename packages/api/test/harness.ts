import { createTestDatabase, type TestDatabase } from '@accounts/db/testing';
import type { Driver } from '@accounts/db';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_ACCOUNT_CONFIG, type AccountConfig } from '../src/config.js';
import { createHasher, type Hasher } from '../src/password-hashing.js';
import { createRealm, findRealm } from '../src/realms.js';
import { createCaller } from '../src/router.js';
import type { IssuedSession } from '../src/sessions.js';

export const STRONG = 'violet tractor sings at midnight';
export const STRONG2 = 'quiet harbor lanterns drifting east';

type Caller = { account: ReturnType<typeof createCaller>['account']; issued: IssuedSession[]; cleared: number };

export interface Harness {
  db: TestDatabase;
  hasher: Hasher;
  config: AccountConfig;
  /** A caller in a realm, optionally holding a session token; `issued` records what it was given. */
  caller(opts?: { realm?: string; token?: string | null; ip?: string }): Caller;
  realm(slug: string): Promise<void>;
}

/** One clean database and one hashing pool per test file (bcrypt cost 4 keeps tests fast). */
export function useHarness(driver: Driver, overrides: Partial<AccountConfig> = {}, cost = 4): Harness {
  const h = { config: { ...DEFAULT_ACCOUNT_CONFIG, ...overrides } } as Harness;
  beforeAll(async () => {
    h.db = await createTestDatabase(driver);
    h.hasher = await createHasher({ cost, pepper: 'test-pepper', workers: 2 });
  });
  afterAll(async () => {
    await h.hasher?.close();
    await h.db?.close();
  });
  h.realm = async (slug) => {
    if (!(await findRealm(h.db.db, slug))) await createRealm(h.db.db, slug, `Realm ${slug}`);
  };
  h.caller = (opts = {}) => {
    const issued: IssuedSession[] = [];
    const record = { issued, cleared: 0 };
    let realmP: Promise<NonNullable<Awaited<ReturnType<typeof findRealm>>>> | undefined;
    const caller = createCaller(async () => {
      realmP ??= findRealm(h.db.db, opts.realm ?? 'default').then((r) => {
        if (!r) throw new Error(`no realm ${opts.realm}`);
        return r;
      });
      return {
        db: h.db.db,
        hasher: h.hasher,
        config: h.config,
        realm: await realmP,
        locale: 'en',
        clientIp: opts.ip ?? '127.0.0.1',
        sessionToken: opts.token ?? null,
        session: { issue: (s) => void issued.push(s), clear: () => void record.cleared++ },
      };
    });
    return Object.assign(record, { account: caller.account });
  };
  return h;
}

let n = 0;
export const uniqueEmail = (tag = 'user') => `${tag}.${process.pid}.${Date.now()}.${n++}@example.com`;

/** Registers a user and returns a caller holding their session. */
export async function registerUser(h: Harness, opts: { email?: string; password?: string; name?: string; realm?: string } = {}) {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? STRONG;
  const c = h.caller({ realm: opts.realm });
  const { user } = await c.account.register({ name: opts.name ?? 'Test User', email, password, password2: password });
  return { user, email, password, token: c.issued[0]!.token, session: c.issued[0]! };
}

/** The problem a call failed with (code, status, field codes), for compact assertions. */
export async function problemOf(p: Promise<unknown>) {
  const { toProblem } = await import('../src/errors.js');
  try {
    await p;
  } catch (err) {
    const problem = toProblem(err, 'en');
    return { status: problem.status, code: problem.code, fields: Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.code])), retryAfter: problem.retryAfter };
  }
  throw new Error('expected the call to fail');
}
