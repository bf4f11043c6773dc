import type { Database, Realm } from '@accounts/db';
import type { Locale, PasswordContext, PasswordVerdict } from '@accounts/validators';
import type { AccountConfig } from './config.js';
import { ProblemError, rateLimited, type ProblemCode } from './errors.js';
import type { ProcedureObserver } from './observers.js';
import type { Vault } from './vault.js';

// What every procedure sees, and the few things the transport does for it. The transports (the
// gateway's form routes, /trpc, its pages, the tests) build a RequestContext per request.

/** A session's token as the client gets it (the database keeps its digest). */
export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

/** What the pools hold now and have refused so far: read, never changed, by whoever reports them. */
export interface HasherStats {
  workers: number;
  /** Hashing tasks (bcrypt) waiting for a thread. */
  queued: number;
  queueMax: number;
  /** Password estimates waiting for the estimating thread. */
  estimatesQueued: number;
  /** Requests refused with server_busy since the start, because a queue was full. */
  refused: number;
}

export interface Hasher {
  readonly cost: number;
  /** The current pepper's id, which every new hash records. */
  readonly pepperId: string;
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Compares against a throwaway hash, so an unknown account costs as much time as a known one. */
  verifyDummy(password: string): Promise<void>;
  needsRehash(stored: string): boolean;
  /** A recovery code's keyed digest (vault.ts), salted and hashed to be kept: bcrypt at RECOVERY_CODE_COST. */
  hashCode(digest: string): Promise<string>;
  /** Whether a keyed digest is the one hashCode hashed into `hash`. */
  verifyCode(digest: string, hash: string): Promise<boolean>;
  /** The password rule's verdict on how easy a new password is to guess, estimated on the estimating thread. */
  judge(password: string, context: PasswordContext): Promise<PasswordVerdict>;
  /** Throws server_busy when `slots` hashing tasks (bcrypt runs) would not find room in the queue. */
  assertCapacity(slots?: number): void;
  stats(): HasherStats;
  /** The thread a task runs on (never the main thread's 0). */
  workerThreadId(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Where a procedure puts the client's credentials (a new session, its end, the known-device
 * credential): HttpOnly cookies, or the response body for a program that asked for its tokens.
 */
export interface SessionSink {
  /** The client takes its tokens in the response body (a program), not in cookies. */
  tokensInBody?: boolean;
  issue(session: IssuedSession): void;
  clear(): void;
  /** Hands the client its known-device credential (the whole value it should send back). */
  rememberDevice(credential: string, expiresAt: Date): void;
  /** Hands a browser its pending sign-in (null: forget it). A program gets it in the problem's body instead. */
  pendingSignIn(token: string | null, expiresAt?: Date): void;
  /** Binds a browser to its sign-ins at upstream providers (credentials/upstream/flows.ts); a transport without browsers has none. */
  upstreamBrowser?(token: string, expiresAt: Date): void;
}

/**
 * A realm as people see it: the display name its operator gave it, or, for the default realm
 * until it is given one, the service's own name (SERVICE_NAME): never the word "Default".
 */
export interface ShownRealm extends Omit<Realm, 'name'> {
  name: string;
  /** Whether the operator named it (pages show a realm row only then). */
  named: boolean;
}

export const shownRealm = (realm: Realm, serviceName: string): ShownRealm => ({
  ...realm,
  name: realm.name ?? serviceName,
  named: realm.name !== null,
});

/** What the transport supplies for one request. */
export interface RequestContext {
  db: Database;
  hasher: Hasher;
  /** Seals the authenticator-app secrets and peppers the recovery codes' hashes (SECRET_KEY). */
  vault: Vault;
  /** The realm the request is addressed to (from its host), with the name people see. */
  realm: ShownRealm;
  locale: Locale;
  clientIp: string | null;
  /** The request's id (the access log's reqId), recorded with the events it causes. */
  requestId?: string | null;
  /** Tells the transport which account the request acted as, for its access log line (never the email). */
  actingAs?: (userId: string) => void;
  /** The caller's session token, from a cookie or a bearer header. */
  sessionToken: string | null;
  /** The known-device credential the client presented (cookie or header), unparsed. */
  deviceCredential?: string | null;
  /** The pending sign-in a browser presented (its cookie), waiting for the second step. */
  pendingSignInToken?: string | null;
  /** The browser's binding to its upstream sign-ins (its cookie): whose flows and pending link are its own. */
  upstreamBrowserToken?: string | null;
  /** Sets and clears the client's credentials (not the signed-in session: that is ctx.auth.session). */
  cookies: SessionSink;
  /** The client's User-Agent, as it sent it (mails describe the device with it). */
  userAgent?: string | null;
  /**
   * Counts a call against the client's limit for an action; returns Retry-After seconds when over
   * it. With `key` the count is kept under that key (e.g. an account's) instead of the address.
   */
  rateLimit?: (action: RateLimitedAction, key?: string) => Promise<number | null>;
  /** The realm's own origin (https://acme.example.com), which links in mails point to. */
  origin?: string | null;
  /** The request's logger, for what the answer does not say (a mail the cap held back). */
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  /** Told of every procedure call and how it ended (the gateway's metrics and traces). */
  observer?: ProcedureObserver;
}

/** What a procedure sees: the request, plus the configuration its router was built with. */
export interface Context extends RequestContext {
  config: AccountConfig;
}

export type RateLimitedAction =
  | 'register'
  | 'signIn'
  /** Every call that checks the account's password or hashes a new one, but sign-in (13 procedures). */
  | 'passwordCheck'
  | 'forgotPassword'
  | 'resendVerification'
  | 'accountWrite'
  | 'passkeyOptions'
  /** Where a mailed link stands (email.checkLink): every opening of a link's page asks once. */
  | 'linkCheck';

/** What a procedure declares about itself, for the transports (the gateway's route documentation). */
export interface ProcedureMeta {
  /** Needs a signed-in session: without one it answers 401 unauthenticated. */
  authenticated?: boolean;
  /** What it does, as its route's documentation says it (the OpenAPI operation's summary). */
  summary?: string;
  /**
   * The problems it answers besides those any call can (the transport's own refusals, 401 for an
   * authenticated one, and its input's validation failures), written beside the rules that refuse.
   */
  problems?: readonly ProblemCode[];
}

/** Counts a call against a limit (per address, or per `key`); over it, 429 rate_limited with Retry-After. */
export async function enforceRateLimit(ctx: RequestContext, action: RateLimitedAction, key?: string): Promise<void> {
  const retryAfter = ctx.rateLimit ? await ctx.rateLimit(action, key) : null;
  if (retryAfter !== null) throw rateLimited(retryAfter);
}

/** The key an account's own count is kept under (a per-address count uses the address). */
export const accountLimitKey = (userId: string) => `user:${userId}`;

/**
 * The realm's own origin (https://acme.example.com): where mailed links point, and the relying
 * party of its passkeys. A request that has none (a program calling the procedures without a
 * configured origin) gets 503 `origin_unknown` rather than links or ceremonies for another host.
 */
export function realmOrigin(ctx: RequestContext): string {
  if (!ctx.origin) throw new ProblemError('origin_unknown');
  return ctx.origin.replace(/\/$/, '');
}
