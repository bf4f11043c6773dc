import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Database, User } from '@accounts/db';
import type { SecondStepCode, SecondStepMethod } from '@accounts/validators';
import {
  addressClient,
  claimPasswordCheck,
  deviceClient,
  lockoutSubject,
  type PasswordCheck,
} from '../credentials/lockout.js';
import { ProblemError } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import { queueTwoStepNotice } from '../mail/notices.js';
import { findPasskey, recordPasskeyUse, takeAssertionChallenge, verifyAssertion } from '../credentials/webauthn.js';
import { beginPendingSignIn, countWrongCode, endPendingSignIn, findPendingSignIn } from './pending.js';
import { presentedDevice, signInKnown, type Started } from './flow.js';
import type { Context } from '../procedures.js';
import { checkSecondStepCode, twoStepStatus } from '../credentials/factors.js';
import { lockIfHashUnchanged } from '../records/users.js';

// The gate every way into a session of an account with two-step sign-in passes: the password
// alone only starts a pending sign-in; a code or a passkey completes it.

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

/** What completes a second step: a code (app or recovery), or a passkey's assertion. */
export type SecondStepAnswer = { code: SecondStepCode } | { passkey: AuthenticationResponseJSON };

/** The live pending sign-in the client holds, or 401 `sign_in_expired` (its cookie forgotten). */
export async function pendingSignInOf(ctx: Context, pendingToken: string | null) {
  const pending = pendingToken ? await findPendingSignIn(ctx.db, pendingToken, ctx.realm.id) : null;
  if (!pending) throw signInExpired(ctx);
  return pending;
}

function signInExpired(ctx: Context) {
  ctx.cookies.pendingSignIn(null);
  return new ProblemError('sign_in_expired');
}

/**
 * How an answer is used up in the sign-in's transaction, checked first where it can be outside
 * it (a passkey's signature). Null when it cannot hold (an unknown passkey, a bad signature).
 */
async function usingAnswer(
  ctx: Context,
  user: User,
  answer: SecondStepAnswer,
  challenge: string | null,
): Promise<((tx: Database) => Promise<SecondStepMethod | null>) | null> {
  if ('code' in answer) return checkSecondStepCode(ctx.db, ctx.vault, user.id, answer.code, ctx.log);
  const found = challenge ? await findPasskey(ctx.db, ctx.realm.id, answer.passkey.id) : null;
  if (!challenge || !found || found.user.id !== user.id) return null;
  const outcome = await verifyAssertion(ctx, found.passkey, answer.passkey, challenge, false);
  if (!outcome.ok) {
    if (outcome.counterWentBack) await recordEvent(ctx.db, eventSource(ctx), 'passkey_counter_regressed', user.id);
    return null;
  }
  return async (tx) => ((await recordPasskeyUse(tx, outcome.assertion)) ? 'passkey' : null);
}

/** Tries left at which a failed answer starts saying how many remain. */
const SAY_ATTEMPTS_LEFT_AT = 2;

/**
 * Completes a pending sign-in with a code or a passkey, counted by the lockout (per client, and
 * every client's in the account-wide cap). A wrong code is 422 on `code`, a passkey that does not
 * hold 422 `passkey_rejected`; the last try ends the pending sign-in with 429 `too_many_codes`
 * (refuseAnswer), and any pending sign-in that is not live here (none, expired, used, void,
 * another realm's) is 401 `sign_in_expired`.
 */
export async function completeSecondStep(
  ctx: Context,
  pendingToken: string | null,
  answer: SecondStepAnswer,
): Promise<{ user: User; started: Started }> {
  const pending = await pendingSignInOf(ctx, pendingToken);
  const { user } = pending;
  // A passkey's challenge is used up first, as at a passkey sign-in: an expired or used one is 400
  // `passkey_challenge_invalid`, not a failed attempt.
  const challenge =
    'passkey' in answer ? await takeAssertionChallenge(ctx, 'second_step', answer.passkey, user.id) : null;
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
  const use = await check.during(() => usingAnswer(ctx, user, answer, challenge));
  const started =
    use &&
    (await signInKnown(ctx, user, check, device, {
      holds: async (tx) => {
        // Used once: a second request with the same pending sign-in finds it gone.
        if (!(await endPendingSignIn(tx, pending.id))) return false;
        const used = await use(tx);
        if (used === 'recovery_code') {
          await recordEvent(tx, eventSource(ctx), 'recovery_code_used', user.id);
          await queueTwoStepNotice(tx, ctx, user, 'recovery_code_used');
        }
        return used !== null;
      },
    }));
  if (!started) throw await refuseAnswer(ctx, check, pending.id, answer);
  ctx.cookies.pendingSignIn(null);
  return { user, started };
}

/**
 * A second step that failed: counted by the lockout and on the pending sign-in. The tries left
 * are the fewer of the two: while some are, the answer is 422 (with `attemptsLeft` once
 * SAY_ATTEMPTS_LEFT_AT or fewer remain); at none the pending sign-in ends and the answer is 429
 * `too_many_codes`, with when this client may sign in again by the lockout's clock.
 */
async function refuseAnswer(
  ctx: Context,
  check: PasswordCheck,
  pendingId: string,
  answer: SecondStepAnswer,
): Promise<ProblemError> {
  await check.failed();
  const onPending = await countWrongCode(ctx.db, pendingId);
  if (onPending === null) return signInExpired(ctx);
  const { left, retryAfter } = await check.standing();
  const tries = Math.min(onPending, left);
  if (tries === 0) {
    await endPendingSignIn(ctx.db, pendingId);
    ctx.cookies.pendingSignIn(null);
    return new ProblemError('too_many_codes', { retryAfter: Math.max(1, retryAfter) });
  }
  const attemptsLeft = tries <= SAY_ATTEMPTS_LEFT_AT ? tries : undefined;
  return 'code' in answer
    ? new ProblemError('validation_failed', { fields: [{ field: 'code', code: 'code_incorrect' }], attemptsLeft })
    : new ProblemError('passkey_rejected', { attemptsLeft });
}
