import { createTestDatabase, STRONG, uniqueEmail, type TestDatabase } from '@accounts/testing';
import type { Driver } from '@accounts/db';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_ACCOUNT_CONFIG, type AccountConfig } from '../src/config.js';
import { createHasher, type Hasher } from '../src/password-hashing.js';
import { createRealm, findRealm } from '../src/realms.js';
import { callerFor, createAppRouter } from '../src/router.js';
import type { IssuedSession } from '../src/sessions.js';
import type { RateLimitedAction } from '../src/trpc.js';


/** Stands in for the gateway's limiter: Retry-After seconds to refuse a call, null to let it through. */
export type Limit = (action: RateLimitedAction, key?: string) => number | null;

type Caller = { account: ReturnType<ReturnType<typeof callerFor>>['account']; security: ReturnType<ReturnType<typeof callerFor>>['security']; issued: IssuedSession[]; cleared: number; devices: string[] };

export interface Harness {
  db: TestDatabase;
  hasher: Hasher;
  config: AccountConfig;
  /** A caller in a realm, optionally holding a session token; `issued` records what it was given. */
  caller(opts?: { realm?: string; token?: string | null; ip?: string; device?: string; userAgent?: string; config?: AccountConfig; limit?: Limit }): Caller;
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
  // One router per configuration, as the gateway builds one at start-up.
  const routers = new WeakMap<AccountConfig, ReturnType<typeof callerFor>>();
  h.caller = (opts = {}) => {
    const config = opts.config ?? h.config;
    if (!routers.has(config)) routers.set(config, callerFor(createAppRouter(config)));
    const createCaller = routers.get(config)!;
    const issued: IssuedSession[] = [];
    const devices: string[] = [];
    const record = { issued, cleared: 0, devices };
    let realmP: Promise<NonNullable<Awaited<ReturnType<typeof findRealm>>>> | undefined;
    const caller = createCaller(async () => {
      realmP ??= findRealm(h.db.db, opts.realm ?? 'default').then((r) => {
        if (!r) throw new Error(`no realm ${opts.realm}`);
        return r;
      });
      return {
        db: h.db.db,
        hasher: h.hasher,
        realm: await realmP,
        locale: 'en',
        clientIp: opts.ip ?? '127.0.0.1',
        userAgent: opts.userAgent ?? null,
        sessionToken: opts.token ?? null,
        deviceCredential: opts.device ?? null,
        session: { issue: (s) => void issued.push(s), clear: () => void record.cleared++, rememberDevice: (d) => void devices.push(d) },
        rateLimit: async (action: RateLimitedAction, key?: string) => opts.limit?.(action, key) ?? null,
      };
    });
    return Object.assign(record, { account: caller.account, security: caller.security });
  };
  return h;
}


/** Registers a user and returns a caller holding their session. */
export async function registerUser(h: Harness, opts: { email?: string; password?: string; name?: string; realm?: string } = {}) {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? STRONG;
  const c = h.caller({ realm: opts.realm });
  const { user } = await c.account.register({ name: opts.name ?? 'Test User', email, password, password2: password });
  return { user, email, password, token: c.issued[0]!.token, session: c.issued[0]!, device: c.devices[0]! };
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
