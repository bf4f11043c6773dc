import type { Session, User } from '@accounts/db';
import { claimPasswordCheck, deviceClient, lockoutSubject, sessionClient, type PasswordCheck } from './account-lockout.js';
import { fieldProblem, type ProblemError } from './errors.js';
import { knownDeviceOf, parseDeviceCredential } from './known-devices.js';
import type { Context } from './trpc.js';

export interface CurrentPasswordCheck {
  check: PasswordCheck;
  /** Settles the claim as a failure and returns the field error to throw (also for a lost race). */
  incorrect(): Promise<ProblemError>;
}

/**
 * Verifies a signed-in person's current password (password change, account deletion). A session
 * is its own client, or its known device: other clients' sign-in failures never refuse it and the
 * account-wide cap does not apply; its own wrong passwords count as `password_change_failed`.
 * A wrong password throws 422 `password_incorrect` on `current_password`.
 */
export async function verifyCurrentPassword(ctx: Context, auth: { user: User; session: Session }, password: string): Promise<CurrentPasswordCheck> {
  const { user, session } = auth;
  const knownDevice = await knownDeviceOf(ctx.db, user.id, parseDeviceCredential(ctx.deviceCredential));
  const client = knownDevice ? deviceClient(knownDevice) : sessionClient(session.id);
  const subject = lockoutSubject(ctx.realm.id, user.email, user.id);
  const source = { realmId: ctx.realm.id, clientIp: ctx.clientIp, userAgent: ctx.userAgent };
  const check = await claimPasswordCheck(ctx.db, source, 'password_change_failed', { subject, client, accountCap: false }, ctx.config);
  const incorrect = async () => {
    await check.failed();
    return fieldProblem('current_password', 'password_incorrect');
  };
  if (!(await check.during(() => ctx.hasher.verify(password, user.passwordHash)))) throw await incorrect();
  return { check, incorrect };
}
