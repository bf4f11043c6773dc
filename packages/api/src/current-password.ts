import { eq, sql } from 'drizzle-orm';
import { sessions, type Session, type User } from '@accounts/db';
import { ago } from './db-time.js';
import {
  claimPasswordCheck,
  deviceClient,
  lockoutSubject,
  sessionClient,
  type PasswordCheck,
} from './account-lockout.js';
import { fieldProblem, type ProblemError } from './errors.js';
import { eventSource } from './events.js';
import { knownDeviceOf, parseDeviceCredential } from './known-devices.js';
import { enforceRateLimit, type Context } from './trpc.js';

export interface CurrentPasswordCheck {
  check: PasswordCheck;
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
  const { user, session } = auth;
  const knownDevice = await knownDeviceOf(ctx.db, user.id, parseDeviceCredential(ctx.deviceCredential));
  const client = knownDevice ? deviceClient(knownDevice) : sessionClient(session.id);
  const subject = lockoutSubject(ctx.realm.id, user.email, user.id);
  const check = await claimPasswordCheck(
    ctx.db,
    eventSource(ctx),
    'password_change_failed',
    { subject, client, accountCap: false },
    ctx.config,
  );
  const incorrect = async () => {
    await check.failed();
    return fieldProblem('current_password', 'password_incorrect');
  };
  if (!(await check.during(() => ctx.hasher.verify(password, user.passwordHash)))) throw await incorrect();
  return { check, knownDevice, incorrect };
}

/**
 * Confirms that the signed-in person is the account's owner before an action a stolen session
 * alone must not take (ending the account's other sessions): the current password, under the
 * per-address limit of a password change, once hashing has room. This is the one place a second
 * step will be asked for, for accounts that have one. Missing is 422 `required` on
 * `current_password`; wrong is `password_incorrect`, counted by the lockout.
 */
export async function confirmOwner(
  ctx: Context,
  auth: { user: User; session: Session },
  proof: { current_password?: string },
): Promise<CurrentPasswordCheck> {
  if (proof.current_password === undefined) throw fieldProblem('current_password', 'required');
  await enforceRateLimit(ctx, 'changePassword');
  ctx.hasher.assertCapacity();
  return verifyCurrentPassword(ctx, auth, proof.current_password);
}

/** How long a session's last password check lets it act without asking again (a passkey, a copy of its data). */
export const PASSWORD_RECHECK_MS = 5 * 60_000;

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
  const [row] = await ctx.db
    .select({ fresh: sql<boolean>`coalesce(${sessions.passwordCheckedAt} > ${ago(PASSWORD_RECHECK_MS)}, false)` })
    .from(sessions)
    .where(eq(sessions.id, auth.session.id));
  // A password given is always checked, fresh session or not: a wrong one is never let through.
  if (row?.fresh && password === undefined) return;
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
