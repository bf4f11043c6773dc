import type { User } from '@accounts/db';
import type { SecondStepCode } from '@accounts/validators';
import {
  addressClient,
  claimPasswordCheck,
  deviceClient,
  lockoutSubject,
  type PasswordCheck,
} from './account-lockout.js';
import { fieldProblem, ProblemError } from './errors.js';
import { eventSource, recordEvent } from './events.js';
import { queueTwoStepNotice } from './mail/notices.js';
import { beginPendingSignIn, countWrongCode, endPendingSignIn, findPendingSignIn } from './pending-sign-ins.js';
import { presentedDevice, signInKnown, type Started } from './sign-in.js';
import type { Context } from './trpc.js';
import { twoStepStatus, useSecondStepCode } from './two-step.js';
import { lockIfHashUnchanged } from './users.js';

// The gate every way into a session of an account with two-step sign-in passes: the password
// alone only starts a pending sign-in; a code completes it.

/**
 * The password of an account with the second step was right: the claim becomes the
 * `sign_in_second_step` event, a pending sign-in starts, and the answer is 401
 * `second_factor_required` with the methods (and, for a program, the pending token; a browser
 * gets it as a cookie). Null when a password change committed first (no pending sign-in then).
 */
export async function askForSecondStep(ctx: Context, user: User, check: PasswordCheck): Promise<ProblemError | null> {
  const pending = await ctx.db.transaction(async (tx) => {
    if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash))) return null;
    await check.passed(tx, 'sign_in_second_step');
    return beginPendingSignIn(tx, ctx.realm.id, user.id);
  });
  if (!pending) return null;
  const { methods } = await twoStepStatus(ctx.db, user);
  if (ctx.cookies.tokensInBody)
    return new ProblemError('second_factor_required', { methods, pendingToken: pending.token });
  ctx.cookies.pendingSignIn(pending.token, pending.expiresAt);
  return new ProblemError('second_factor_required', { methods });
}

/**
 * Completes a pending sign-in with a code: an app code or a recovery code, counted by the lockout
 * like a password (per client; the owner's known devices are never locked out by others). A
 * wrong code is 422 on `code`; the fifth ends the pending sign-in, and any pending sign-in that
 * is not live here (none, expired, used, void, another realm's) is 401 `sign_in_expired`.
 */
export async function completeSecondStep(
  ctx: Context,
  pendingToken: string | null,
  code: SecondStepCode,
): Promise<{ user: User; started: Started }> {
  const pending = pendingToken ? await findPendingSignIn(ctx.db, pendingToken, ctx.realm.id) : null;
  const expired = () => {
    ctx.cookies.pendingSignIn(null);
    return new ProblemError('sign_in_expired');
  };
  if (!pending) throw expired();
  const { user } = pending;
  const device = await presentedDevice(ctx, user.id);
  const check = await claimPasswordCheck(
    ctx.db,
    eventSource(ctx),
    'second_factor_failed',
    {
      subject: lockoutSubject(ctx.realm.id, user.email, user.id),
      client: device.known ? deviceClient(device.known) : addressClient(ctx.clientIp),
      accountCap: true,
    },
    ctx.config,
  );
  const started = await signInKnown(ctx, user, check, device, async (tx) => {
    // Used once: a second request with the same pending sign-in finds it gone.
    if (!(await endPendingSignIn(tx, pending.id))) return false;
    const used = await useSecondStepCode(tx, ctx.vault, user.id, code, ctx.log);
    if (used === 'recovery_code') {
      await recordEvent(tx, eventSource(ctx), 'recovery_code_used', user.id);
      await queueTwoStepNotice(tx, ctx, user, 'recovery_code_used');
    }
    return used !== null;
  });
  if (!started) {
    await check.failed();
    if (!(await countWrongCode(ctx.db, pending.id))) throw expired();
    throw fieldProblem('code', 'code_incorrect');
  }
  ctx.cookies.pendingSignIn(null);
  return { user, started };
}
