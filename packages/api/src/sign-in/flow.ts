import type { Database, User } from '@accounts/db';
import type { PasswordCheck } from '../credentials/lockout.js';
import { knownDeviceOf, parseDeviceCredential, rememberDevice } from '../credentials/known-devices.js';
import { queueNewSignIn } from '../mail/notices.js';
import { createSession, deleteSessionByToken, type IssuedSession } from '../records/sessions.js';
import type { Context } from '../procedures.js';
import { lockIfHashUnchanged } from '../records/users.js';

// What a sign-in does once the person is known, whatever proved it (the password, and the second
// step for accounts that have one: second-step.ts): end the presented session, start one, remember
// the device, hand over cookies or tokens. Registration starts its first session the same way.

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

/** What a sign-in proved, which the session keeps the time of: the password, a second factor. */
export interface Proved {
  password: boolean;
  factor: boolean;
}

/** A password sign-in without a second step, and a registration. */
const PASSWORD_ONLY: Proved = { password: true, factor: false };

/**
 * Starts a session in the transaction that records why: the session the client presented ends (a
 * new sign-in never keeps an old token alive), a new one starts, and the client becomes (or
 * stays) a known device of the account.
 */
export async function startSession(
  tx: Database,
  ctx: Context,
  userId: string,
  device: PresentedDevice,
  proved: Proved = PASSWORD_ONLY,
): Promise<Started> {
  await deleteSessionByToken(tx, ctx.sessionToken, ctx.realm.id);
  const session = await createSession(tx, userId, ctx.config, {
    userAgent: ctx.userAgent,
    clientIp: ctx.clientIp,
    passwordChecked: proved.password,
    factorChecked: proved.factor,
  });
  const credential = await rememberDevice(tx, userId, device.tokens, device.known);
  return { session, credential };
}

/**
 * What proves a sign-in besides (or, for a passkey, instead of) the password, checked and used
 * up inside the sign-in's transaction: a second step's code, or a passkey's assertion. Either is
 * a second factor: the session starts with it proved (a passkey sign-in verifies the person).
 */
export interface SignInProof {
  holds(tx: Database): Promise<boolean>;
  /** A passkey sign-in: the session starts without a password check. */
  passwordless?: boolean;
}

/** Rolls back a sign-in whose last proof failed inside its transaction. */
class ProofFailed extends Error {}

/**
 * Signs in a person whose `check` passed. One transaction, while the verified hash still holds:
 * `proof` (the second step's code, used up) must hold too, the claim becomes the `signed_in`
 * event, a client that is not a known device of the account is announced to the owner, and the
 * session starts. Null when a password change committed first (the verified password is stale),
 * when the account has two-step sign-in and no proof was given, or when the proof failed: nothing
 * is written then.
 */
export async function signInKnown(
  ctx: Context,
  user: User,
  check: PasswordCheck,
  device: PresentedDevice,
  proof?: SignInProof,
): Promise<Started | null> {
  return ctx.db
    .transaction(async (tx) => {
      const locked = await lockIfHashUnchanged(tx, user.id, user.passwordHash);
      if (!locked) return null;
      // The gate: an account with two-step sign-in is never signed in without the second step's proof.
      if (locked.twoStep && !proof) return null;
      if (proof && !(await proof.holds(tx))) throw new ProofFailed();
      await check.passed(tx, 'signed_in');
      if (!device.known) await queueNewSignIn(tx, ctx, user);
      return startSession(tx, ctx, user.id, device, { password: !proof?.passwordless, factor: proof !== undefined });
    })
    .catch((err: unknown) => {
      if (err instanceof ProofFailed) return null;
      throw err;
    });
}

/** Gives the client its tokens: as cookies, or in the result for a program that asked for them. */
export function handOver(ctx: Context, started: Started) {
  ctx.cookies.issue(started.session);
  ctx.cookies.rememberDevice(started.credential, new Date(Date.now() + ctx.config.knownDeviceTtlMs));
  return ctx.cookies.tokensInBody ? { session: started.session, knownDevice: started.credential } : {};
}
