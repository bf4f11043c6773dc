import { createTestDatabase, STRONG, uniqueEmail, type TestDatabase } from '@accounts/testing';
import type { Driver } from '@accounts/db';
import type { Locale } from '@accounts/validators';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_ACCOUNT_CONFIG, type AccountConfig } from '../src/kernel/config.js';
import { createHasher } from '../src/credentials/password-hashing.js';
import {
  shownRealm,
  type Hasher,
  type IssuedSession,
  type RateLimitedAction,
  type RequestContext,
} from '../src/kernel/context.js';
import { createRealm, findRealm } from '../src/records/realms.js';
import { callerFor, createAppRouter } from '../src/router.js';
import { createVault, newSecretKey, type Vault } from '../src/kernel/vault.js';

/** Stands in for the gateway's limiter: Retry-After seconds to refuse a call, null to let it through. */
export type Limit = (action: RateLimitedAction, key?: string) => number | null;

/** What a test request carries (the gateway reads the same from HTTP). */
export interface TestRequest {
  realm?: string;
  token?: string | null;
  ip?: string;
  device?: string;
  /** The pending sign-in cookie a browser would send. */
  pending?: string;
  /** A client that takes its tokens in the body (X-Session-Delivery: token). */
  tokensInBody?: boolean;
  userAgent?: string | null;
  locale?: Locale;
  /** The realm's origin that mailed links point to, from its slug (default: http://<slug>.example.test); null: none configured. */
  origin?: ((realmSlug: string) => string) | null;
  config?: AccountConfig;
  limit?: Limit;
  /** Receives what the procedures log (warn lines). */
  log?: string[];
}

/** What the procedures handed the client: sessions issued, sign-outs, known-device credentials. */
export interface Handed {
  issued: IssuedSession[];
  cleared: number;
  devices: string[];
  /** Pending sign-in cookies set (a token) and cleared (null), in order. */
  pending: (string | null)[];
}

type AppCaller = ReturnType<ReturnType<typeof callerFor>>;
export type Caller = Handed &
  Pick<
    AppCaller,
    | 'account'
    | 'email'
    | 'security'
    | 'twoStep'
    | 'passkeys'
    | 'emailChange'
    | 'accountData'
    | 'apps'
    | 'upstream'
    | 'connections'
  >;

export interface Harness {
  db: TestDatabase;
  hasher: Hasher;
  vault: Vault;
  config: AccountConfig;
  /** A caller of every router in a realm, optionally holding a session token; `issued` records what it was given. */
  caller(opts?: TestRequest): Caller;
  realm(slug: string): Promise<void>;
}

/** The one RequestContext of a test request, with a record of what its procedures hand the client. */
export function testContext(
  h: Pick<Harness, 'db' | 'hasher' | 'vault'>,
  opts: TestRequest = {},
): { context: () => Promise<RequestContext>; handed: Handed } {
  const handed: Handed = { issued: [], cleared: 0, devices: [], pending: [] };
  let realmP: ReturnType<typeof findRealm> | undefined;
  const context = async (): Promise<RequestContext> => {
    realmP ??= findRealm(h.db.db, opts.realm ?? 'default');
    const realm = await realmP;
    if (!realm) throw new Error(`no realm ${opts.realm}`);
    const log = opts.log;
    return {
      db: h.db.db,
      hasher: h.hasher,
      vault: h.vault,
      realm: shownRealm(realm, (opts.config ?? DEFAULT_ACCOUNT_CONFIG).productName),
      locale: opts.locale ?? 'en',
      clientIp: opts.ip ?? '127.0.0.1',
      userAgent: opts.userAgent ?? null,
      origin: opts.origin === null ? null : (opts.origin ?? ((slug) => `http://${slug}.example.test`))(realm.slug),
      sessionToken: opts.token ?? null,
      deviceCredential: opts.device ?? null,
      pendingSignInToken: opts.pending ?? null,
      cookies: {
        tokensInBody: opts.tokensInBody,
        pendingSignIn: (token) => void handed.pending.push(token),
        issue: (s) => void handed.issued.push(s),
        clear: () => void handed.cleared++,
        rememberDevice: (d) => void handed.devices.push(d),
      },
      rateLimit: (action, key) => Promise.resolve(opts.limit?.(action, key) ?? null),
      log: log && { warn: (fields, message) => void log.push(JSON.stringify({ ...fields, msg: message })) },
    };
  };
  return { context, handed };
}

/**
 * The tests' SECRET_KEY vault: one key, so the mail helpers can open the links the outbox keeps
 * sealed. A harness's own vault (h.vault) has the same key and its hashing pool.
 */
export const TEST_SECRET_KEY = Buffer.from(newSecretKey(), 'hex');
export const TEST_VAULT = createVault(TEST_SECRET_KEY);

// One hashing pool per test process and cost, kept until the process ends: its estimating thread
// loads the password estimator (about 1.5 s of CPU) once, not once per harness, and the files of
// this package share the process (isolate: false in vitest.config.ts).
const hashers = new Map<number, Promise<Hasher>>();
const sharedHasher = (cost: number) => {
  if (!hashers.has(cost)) hashers.set(cost, createHasher({ cost, pepper: 'test-pepper', workers: 2 }));
  return hashers.get(cost)!;
};

/** One clean database per test file and a shared hashing pool (bcrypt cost 4 keeps tests fast). */
export function useHarness(driver: Driver, overrides: Partial<AccountConfig> = {}, cost = 4): Harness {
  const h = {
    config: { ...DEFAULT_ACCOUNT_CONFIG, ...overrides },
    vault: TEST_VAULT,
  } as Harness;
  beforeAll(async () => {
    h.db = await createTestDatabase(driver);
    h.hasher = await sharedHasher(cost);
    // TEST_VAULT's key, with the pool that hashes recovery codes.
    h.vault = createVault(TEST_SECRET_KEY, [], h.hasher);
  });
  afterAll(async () => {
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
    const { context, handed } = testContext(h, { ...opts, config });
    const caller = routers.get(config)!(context);
    return Object.assign(handed, {
      account: caller.account,
      email: caller.email,
      security: caller.security,
      twoStep: caller.twoStep,
      passkeys: caller.passkeys,
      emailChange: caller.emailChange,
      accountData: caller.accountData,
      apps: caller.apps,
      upstream: caller.upstream,
      connections: caller.connections,
    });
  };
  return h;
}

/** Registers a user and returns a caller holding their session. */
export async function registerUser(
  h: Harness,
  opts: { email?: string; password?: string; name?: string; realm?: string } = {},
) {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? STRONG;
  const c = h.caller({ realm: opts.realm });
  const { user } = await c.account.register({ name: opts.name ?? 'Test User', email, password, password2: password });
  return { user, email, password, token: c.issued[0]!.token, session: c.issued[0]!, device: c.devices[0]! };
}

/** The problem a call failed with (code, status, field codes), for compact assertions. */
export async function problemOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return problemFrom(err);
  }
  throw new Error('expected the call to fail');
}

/** The problem a call's error (e.g. a settled promise's rejection reason) answers with. */
export async function problemFrom(err: unknown) {
  const { toProblem } = await import('../src/kernel/errors.js');
  const problem = toProblem(err, 'en');
  return {
    status: problem.status,
    code: problem.code,
    fields: Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.code])),
    retryAfter: problem.retryAfter,
    methods: problem.methods,
    pendingToken: problem.pendingToken,
    attemptsLeft: problem.attemptsLeft,
  };
}
