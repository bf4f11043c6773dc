import type { Database, User } from '@accounts/db';
import type { SecondStepMethod } from '@accounts/validators';
import {
  addressClient,
  claimCheck,
  deviceClient,
  type ClaimedCheck,
  type FailureType,
  type LockoutSubject,
} from '../credentials/lockout.js';
import { knownDeviceOf, parseDeviceCredential, rememberDevice } from '../credentials/known-devices.js';
import { twoStepStatus } from '../credentials/factors.js';
import { ProblemError } from '../kernel/errors.js';
import { queueNewSignIn } from '../mail/notices.js';
import type { Context } from '../kernel/context.js';
import { eventSource } from '../records/events.js';
import { realmRequiresVerifiedEmail } from '../records/realm-settings.js';
import { createSession, deleteSessionByToken } from '../records/sessions.js';
import type { IssuedSession } from '../kernel/context.js';
import { lockIfHashUnchanged, publicUser, rememberLocale } from '../records/users.js';
import { beginPendingSignIn, type PendingSignIn } from './pending.js';
import { linkPendingIdentity } from './upstream.js';

// The one way into a session. `signIn` owns the skeleton every method shares (whose counters,
// which client, the claim, the proof checked while it is held, the refusal, the unconfirmed
// address, the second step's gate, the hand-over); a method (password.ts, passkey.ts,
// second-step.ts, upstream.ts) says only what differs. Registration starts its first session with
// `startSession` too: no session starts anywhere else.

/** The account a try names (null: none, counted all the same) and whose counters it runs against. */
export interface Identified<S = unknown> {
  user: User | null;
  subject: LockoutSubject;
  /** What the method found on the way (a pending sign-in, a passkey's challenge) for its later steps. */
  state: S;
}

/**
 * What a right proof leaves to be used up inside the sign-in's transaction (a second step's code,
 * a passkey's counter). A password has nothing to use up: its proof is `{}`.
 */
export interface Verified {
  holds?: (tx: Database) => Promise<boolean>;
  /** What the proof was, as RFC 8176 method references (a passkey: `hwk` or `swk`; a code: `otp`). */
  amr?: readonly string[];
  /** A second step's: what its first step proved (the pending sign-in's; the password unless said). */
  first?: readonly string[];
}

/** One way of proving who one is, in the vocabulary of Keycloak's authenticators. */
export interface SignInMethod<In, S = unknown> {
  /** How a failed try is counted by the lockout. */
  failure: FailureType;
  /**
   * 'first': the password (an account with two-step sign-in is then asked for its second step);
   * 'whole': a passkey (a complete sign-in, the password not asked); 'second': the second step.
   */
  completes: 'first' | 'whole' | 'second';
  /** Who the try is about. May refuse before anything is counted (an expired challenge, 400). */
  identify(ctx: Context, input: In): Promise<Identified<S>>;
  /** Checks the proof while the claim is held; null when it is wrong. */
  verify(ctx: Context, found: Identified<S>, input: In): Promise<Verified | null>;
  /** The answer to a refused try, once the flow has settled its claim as a failure. */
  refusal(ctx: Context, found: Identified<S>, input: In, check: ClaimedCheck): ProblemError | Promise<ProblemError>;
  /** After the try passed (signed in, or asked for the second step): the password upgrades an old hash. */
  passed?(ctx: Context, user: User, input: In): void | Promise<void>;
}

/** What a sign-in comes to inside the api: signed in, or a pending sign-in waiting for its second step. */
export type SignInOutcome =
  | { next: 'signed_in'; user: User; started: Started }
  | { next: 'second_step'; user: User; methods: SecondStepMethod[]; pending: PendingSignIn };

/** Runs one try of `method`. Refusals are thrown problems; success and the second step are outcomes. */
export async function signIn<In, S>(ctx: Context, method: SignInMethod<In, S>, input: In): Promise<SignInOutcome> {
  const found = await method.identify(ctx, input);
  const { user } = found;
  const device = await presentedDevice(ctx, user?.id ?? null);
  const check = await claimCheck(
    ctx.db,
    eventSource(ctx),
    method.failure,
    { subject: found.subject, client: clientOf(ctx, device), accountCap: true },
    ctx.config,
  );
  const refuse = async () => {
    // The claim settles as this try's failure event.
    await check.failed();
    return method.refusal(ctx, found, input, check);
  };
  const verified = await check.during(() => method.verify(ctx, found, input));
  // A disabled account answers as a wrong proof would, after the same work.
  if (!verified || !user || user.disabledAt) throw await refuse();
  // In a realm that requires a confirmed address, the right proof of an unconfirmed account gets
  // its own answer (only after the proof was checked, so it tells a guesser nothing).
  if (
    method.completes !== 'second' &&
    !user.emailVerifiedAt &&
    (await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id))
  ) {
    await check.passed(ctx.db, 'sign_in_unverified');
    throw new ProblemError('email_not_verified');
  }
  // With two-step sign-in a first step only starts a pending sign-in: the second step completes it.
  const first: Proved = verified.amr
    ? { password: verified.amr.includes('pwd'), factor: false, amr: verified.amr }
    : PASSWORD_ONLY;
  if (method.completes === 'first' && user.twoStep) {
    const pending = await beginSecondStep(ctx, user, check, first.amr);
    if (!pending) throw await refuse();
    await method.passed?.(ctx, user, input);
    return { next: 'second_step', user, methods: (await twoStepStatus(ctx.db, user)).methods, pending };
  }
  const before = verified.first ?? PASSWORD_ONLY.amr;
  const started =
    method.completes === 'first'
      ? await signInKnown(ctx, user, check, device, undefined, first)
      : await signInKnown(ctx, user, check, device, verified, {
          password: method.completes === 'second' && before.includes('pwd'),
          factor: true,
          amr: method.completes === 'second' ? [...before, ...(verified.amr ?? []), 'mfa'] : (verified.amr ?? []),
        });
  if (!started) throw await refuse();
  // The owner's language from now on; after the new-sign-in notice, which went out in the one they used before.
  await rememberLocale(ctx.db, user, ctx.locale);
  await method.passed?.(ctx, user, input);
  // An identity from a provider that waited for this account's owner to sign in is linked now.
  await linkPendingIdentity(ctx, user);
  return { next: 'signed_in', user, started };
}

/**
 * The one place a sign-in's outcome becomes an answer: a session handed over with the account, or
 * the documented 401 `second_factor_required` with the methods (and, for a program, the pending
 * token; a browser gets it as a cookie).
 */
export function answer(ctx: Context, outcome: SignInOutcome) {
  if (outcome.next === 'signed_in')
    return { user: publicUser(outcome.user, ctx.realm), ...handOver(ctx, outcome.started) };
  const { methods, pending } = outcome;
  if (ctx.cookies.tokensInBody)
    throw new ProblemError('second_factor_required', { methods, pendingToken: pending.token });
  ctx.cookies.pendingSignIn(pending.token, pending.expiresAt);
  throw new ProblemError('second_factor_required', { methods });
}

/** The known-device credential the client presented, and which of its tokens the account knows. */
export interface PresentedDevice {
  tokens: string[];
  /** The digest of the token that is a known device of the account; null when none is. */
  known: string | null;
}

/** A new session and the known-device credential to hand to the client. */
export interface Started {
  session: IssuedSession;
  credential: string;
}

/** The client's device as the account sees it (an unknown email looks it up too and finds nothing). */
export async function presentedDevice(ctx: Context, userId: string | null): Promise<PresentedDevice> {
  const tokens = parseDeviceCredential(ctx.deviceCredential);
  return { tokens, known: await knownDeviceOf(ctx.db, userId, tokens) };
}

/** Whose counters a try from this client runs on: its known device's, else its address's. */
const clientOf = (ctx: Context, device: PresentedDevice) =>
  device.known ? deviceClient(device.known) : addressClient(ctx.clientIp);

/** What a sign-in proved, which the session keeps the time of: the password, a second factor. */
export interface Proved {
  password: boolean;
  factor: boolean;
  /** How, as RFC 8176 method references: what apps the session signs in to are told. */
  amr: readonly string[];
}

/** A sign-in with the password alone (and a registration). */
export const PASSWORD_ONLY: Proved = { password: true, factor: false, amr: ['pwd'] };

/**
 * Starts a session in the transaction that records why: the session the client presented ends (a
 * new sign-in never keeps an old token alive), a new one starts, and the client becomes (or
 * stays) a known device of the account. Registration calls it for the first session.
 */
export async function startSession(
  tx: Database,
  ctx: Context,
  userId: string,
  device: PresentedDevice,
  proved: Proved,
): Promise<Started> {
  await deleteSessionByToken(tx, ctx.sessionToken, ctx.realm.id);
  const session = await createSession(tx, userId, ctx.config, {
    userAgent: ctx.userAgent,
    clientIp: ctx.clientIp,
    passwordChecked: proved.password,
    factorChecked: proved.factor,
    amr: proved.amr,
  });
  const credential = await rememberDevice(tx, userId, device.tokens, device.known);
  return { session, credential };
}

/** Rolls back a sign-in whose last proof failed inside its transaction. */
class ProofFailed extends Error {}

/**
 * Signs in a person whose `check` passed. One transaction, while the verified hash still holds:
 * the proof's use (the second step's code, a passkey's counter) must hold too, the claim becomes
 * the `signed_in` event, a client that is not a known device of the account is announced to the
 * owner, and the session starts. Null when a password change committed first (the verified
 * password is stale), when the account has two-step sign-in and no second proof was given, or
 * when the proof failed: nothing is written then. Only `signIn` calls it (a test holds the gate).
 */
export async function signInKnown(
  ctx: Context,
  user: User,
  check: ClaimedCheck,
  device: PresentedDevice,
  proof?: Verified,
  proved: Proved = PASSWORD_ONLY,
): Promise<Started | null> {
  return ctx.db
    .transaction(async (tx) => {
      const locked = await lockIfHashUnchanged(tx, user.id, user.passwordHash);
      if (!locked) return null;
      // The gate: an account with two-step sign-in is never signed in without a second proof.
      if (locked.twoStep && !proof) return null;
      if (proof?.holds && !(await proof.holds(tx))) throw new ProofFailed();
      await check.passed(tx, 'signed_in');
      if (!device.known) await queueNewSignIn(tx, ctx, user);
      return startSession(tx, ctx, user.id, device, proved);
    })
    .catch((err: unknown) => {
      if (err instanceof ProofFailed) return null;
      throw err;
    });
}

/**
 * A first step of an account with two-step sign-in was right: the claim becomes the
 * `sign_in_second_step` event and a pending sign-in starts. Null when a password change
 * committed first (no pending sign-in then).
 */
async function beginSecondStep(
  ctx: Context,
  user: User,
  check: ClaimedCheck,
  firstAmr: readonly string[],
): Promise<PendingSignIn | null> {
  return ctx.db.transaction(async (tx) => {
    if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash))) return null;
    await check.passed(tx, 'sign_in_second_step');
    return beginPendingSignIn(tx, ctx.realm.id, user.id, firstAmr);
  });
}

/** Gives the client its tokens: as cookies, or in the result for a program that asked for them. */
export function handOver(ctx: Context, started: Started) {
  ctx.cookies.issue(started.session);
  ctx.cookies.rememberDevice(started.credential, new Date(Date.now() + ctx.config.knownDeviceTtlMs));
  return ctx.cookies.tokensInBody ? { session: started.session, knownDevice: started.credential } : {};
}
