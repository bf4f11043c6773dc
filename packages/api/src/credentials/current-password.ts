import { eq, sql } from 'drizzle-orm';
import { sessions, type Database, type Session, type User } from '@accounts/db';
import { ago } from '../kernel/db-time.js';
import {
  claimCheck,
  deviceClient,
  lockoutSubject,
  sessionClient,
  type FailureType,
  type ClaimedCheck,
} from './lockout.js';
import { fieldProblem, type ProblemError } from '../kernel/errors.js';
import { eventSource } from '../records/events.js';
import { knownDeviceOf, parseDeviceCredential } from './known-devices.js';
import { enforceRateLimit, type Context } from '../kernel/context.js';

export interface CurrentPasswordCheck {
  check: ClaimedCheck;
  /** The digest of the caller's known-device token for the account, if it presented one. */
  knownDevice: string | null;
  /** Settles the claim as a failure and returns the field error to throw (also for a lost race). */
  incorrect: () => Promise<ProblemError>;
}

/**
 * Verifies a signed-in person's current password (password change, account deletion). A session
 * is its own client, or its known device: other clients' sign-in failures never refuse it and the
 * account-wide cap does not apply; its own wrong passwords count as `password_change_failed`.
 * A wrong password throws 422 `password_incorrect` on `current_password`.
 */
export async function verifyCurrentPassword(
  ctx: Context,
  auth: { user: User; session: Session },
  password: string,
): Promise<CurrentPasswordCheck> {
  const { user } = auth;
  const { check, knownDevice } = await claimOwnCheck(ctx, auth, 'password_change_failed');
  const incorrect = async () => {
    await check.failed();
    return fieldProblem('current_password', 'password_incorrect');
  };
  if (!(await check.during(() => ctx.hasher.verify(password, user.passwordHash)))) throw await incorrect();
  return { check, knownDevice, incorrect };
}

/**
 * Claims a check of what a signed-in person gives (a password, a code, a passkey) under the
 * lockout, counted as `type` when it fails. The session is its own client, or its known device:
 * other clients' failures never refuse it and the account-wide cap does not apply.
 */
export async function claimOwnCheck(
  ctx: Context,
  auth: { user: User; session: Session },
  type: FailureType,
): Promise<{ check: ClaimedCheck; knownDevice: string | null }> {
  const { user, session } = auth;
  const knownDevice = await knownDeviceOf(ctx.db, user.id, parseDeviceCredential(ctx.deviceCredential));
  const client = knownDevice ? deviceClient(knownDevice) : sessionClient(session.id);
  const subject = lockoutSubject(ctx.realm.id, user.email, user.id);
  const check = await claimCheck(ctx.db, eventSource(ctx), type, { subject, client, accountCap: false }, ctx.config);
  return { check, knownDevice };
}

/**
 * Confirms that the signed-in person is the account's owner before an action a stolen session
 * alone must not take (ending the account's other sessions): the current password, under the
 * per-address limit of a password change, once hashing has room. (Binding or removing a second
 * factor asks more: account-level.ts.) Missing is 422 `required` on
 * `current_password`; wrong is `password_incorrect`, counted by the lockout.
 */
export async function confirmOwner(
  ctx: Context,
  auth: { user: User; session: Session },
  proof: { current_password?: string },
): Promise<CurrentPasswordCheck> {
  if (proof.current_password === undefined) throw fieldProblem('current_password', 'required');
  await enforceRateLimit(ctx, 'passwordCheck');
  ctx.hasher.assertCapacity();
  return verifyCurrentPassword(ctx, auth, proof.current_password);
}

/** How long a session's last password check lets it act without asking again (a passkey, a copy of its data). */
export const PASSWORD_RECHECK_MS = 5 * 60_000;

/** Whether the session proved the password within PASSWORD_RECHECK_MS. */
export async function passwordIsFresh(db: Database, sessionId: string): Promise<boolean> {
  const [row] = await db
    .select({ fresh: sql<boolean>`coalesce(${sessions.passwordCheckedAt} > ${ago(PASSWORD_RECHECK_MS)}, false)` })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  return row?.fresh ?? false;
}

/**
 * Makes sure this session proved the password within PASSWORD_RECHECK_MS (its sign-in or a
 * re-check; a passkey sign-in proved none). If not, `password` must come now: missing is 422
 * `password_recheck_required` on `current_password`, wrong is `password_incorrect`, counted like
 * every password check. A right one counts as the session's proof from now.
 */
export async function requireRecentPassword(
  ctx: Context,
  auth: { user: User; session: Session },
  password: string | undefined,
): Promise<void> {
  // A password given is always checked, fresh session or not: a wrong one is never let through.
  if (password === undefined && (await passwordIsFresh(ctx.db, auth.session.id))) return;
  if (password === undefined) throw fieldProblem('current_password', 'password_recheck_required');
  ctx.hasher.assertCapacity();
  const { check } = await verifyCurrentPassword(ctx, auth, password);
  // Proved: nothing happened to the account yet, so the claim leaves no event.
  await check.withdraw();
  await ctx.db
    .update(sessions)
    .set({ passwordCheckedAt: sql`now()` })
    .where(eq(sessions.id, auth.session.id));
}
