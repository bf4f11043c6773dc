import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Database, User } from '@accounts/db';
import type { SecondStepCode, SecondStepMethod } from '@accounts/validators';
import { checkSecondStepCode } from '../credentials/factors.js';
import { lockoutSubject } from '../credentials/lockout.js';
import { passkeyMethodReference } from '../credentials/passkey-kinds.js';
import { findPasskey, recordPasskeyUse, takeAssertionChallenge, verifyAssertion } from '../credentials/webauthn.js';
import { ProblemError } from '../kernel/errors.js';
import { queueTwoStepNotice } from '../mail/notices.js';
import type { Context } from '../kernel/context.js';
import { eventSource, recordEvent } from '../records/events.js';
import type { SignInMethod } from './flow.js';
import { countWrongCode, endPendingSignIn, findPendingSignIn } from './pending.js';

// The second step of a sign-in whose first step was right: a code (the app's or a recovery code)
// or a passkey completes the pending sign-in the client holds.

/** What completes a second step: a code (app or recovery), or a passkey's assertion. */
export type SecondStepAnswer = { code: SecondStepCode } | { passkey: AuthenticationResponseJSON };

export interface SecondStepTry {
  /** The pending sign-in's token: the body's (a program) or the cookie's (a browser). */
  pendingToken: string | null;
  answer: SecondStepAnswer;
}

/** The pending sign-in a token names in this realm while it is live, or 401 `sign_in_expired`. */
export async function livePendingSignIn(ctx: Context, pendingToken: string | null) {
  const pending = pendingToken ? await findPendingSignIn(ctx.db, pendingToken, ctx.realm.id) : null;
  if (!pending) throw signInExpired(ctx);
  return pending;
}

function signInExpired(ctx: Context) {
  ctx.cookies.pendingSignIn(null);
  return new ProblemError('sign_in_expired');
}

/** Tries left at which a failed answer starts saying how many remain. */
const SAY_ATTEMPTS_LEFT_AT = 2;

type Found = { pendingId: string; challenge: string | null; firstAmr: string[] };

/**
 * Completes a pending sign-in, counted by the lockout (per client, and every client's in the
 * account-wide cap). A wrong code is 422 on `code`, a passkey that does not hold 422
 * `passkey_rejected`; the last try ends the pending sign-in with 429 `too_many_codes`, and a
 * pending sign-in that is not live here (none, expired, used, void, another realm's) is 401
 * `sign_in_expired`.
 */
export const secondStepMethod: SignInMethod<SecondStepTry, Found> = {
  failure: 'second_factor_failed',
  completes: 'second',
  async identify(ctx, { pendingToken, answer }) {
    const { id, user, firstAmr } = await livePendingSignIn(ctx, pendingToken);
    // A passkey's challenge is used up first, as at a passkey sign-in: an expired or used one is
    // 400 `passkey_challenge_invalid`, not a failed try.
    const challenge =
      'passkey' in answer ? await takeAssertionChallenge(ctx, 'second_step', answer.passkey, user.id) : null;
    return {
      user,
      subject: lockoutSubject(ctx.realm.id, user.email, user.id),
      state: { pendingId: id, challenge, firstAmr },
    };
  },
  async verify(ctx, { user, state }, { answer }) {
    const using = await usingAnswer(ctx, user!, answer, state.challenge);
    if (!using) return null;
    const { use, amr } = using;
    return {
      amr,
      first: state.firstAmr,
      holds: async (tx) => {
        // Used once: a second request with the same pending sign-in finds it gone.
        if (!(await endPendingSignIn(tx, state.pendingId))) return false;
        const used = await use(tx);
        if (used === 'recovery_code') {
          await recordEvent(tx, eventSource(ctx), 'recovery_code_used', user!.id);
          await queueTwoStepNotice(tx, ctx, user!, 'recovery_code_used');
        }
        return used !== null;
      },
    };
  },
  /**
   * Counted on the pending sign-in too. The tries left are the fewer of the two: while some are,
   * the answer is 422 (with `attemptsLeft` once SAY_ATTEMPTS_LEFT_AT or fewer remain); at none
   * the pending sign-in ends and the answer is 429 `too_many_codes`, with when this client may
   * sign in again by the lockout's clock.
   */
  async refusal(ctx, { state }, { answer }, check) {
    const onPending = await countWrongCode(ctx.db, state.pendingId);
    if (onPending === null) return signInExpired(ctx);
    const { left, retryAfter } = await check.standing();
    const tries = Math.min(onPending, left);
    if (tries === 0) {
      await endPendingSignIn(ctx.db, state.pendingId);
      ctx.cookies.pendingSignIn(null);
      return new ProblemError('too_many_codes', { retryAfter: Math.max(1, retryAfter) });
    }
    const attemptsLeft = tries <= SAY_ATTEMPTS_LEFT_AT ? tries : undefined;
    return 'code' in answer
      ? new ProblemError('validation_failed', { fields: [{ field: 'code', code: 'code_incorrect' }], attemptsLeft })
      : new ProblemError('passkey_rejected', { attemptsLeft });
  },
  passed(ctx) {
    ctx.cookies.pendingSignIn(null);
  },
};

/**
 * How an answer is used up in the sign-in's transaction, checked first where it can be outside
 * it (a passkey's signature), and what it was (RFC 8176: a code of the app or a recovery code is
 * `otp`, a passkey `hwk` or `swk`). Null when it cannot hold (an unknown passkey, a bad signature).
 */
async function usingAnswer(
  ctx: Context,
  user: User,
  answer: SecondStepAnswer,
  challenge: string | null,
): Promise<{ use: (tx: Database) => Promise<SecondStepMethod | null>; amr: string[] } | null> {
  if ('code' in answer) {
    return { use: await checkSecondStepCode(ctx.db, ctx.vault, user.id, answer.code, ctx.log), amr: ['otp'] };
  }
  const found = challenge ? await findPasskey(ctx.db, ctx.realm.id, answer.passkey.id) : null;
  if (!challenge || !found || found.user.id !== user.id) return null;
  const outcome = await verifyAssertion(ctx, found.passkey, answer.passkey, challenge, false);
  if (!outcome.ok) {
    if (outcome.counterWentBack) await recordEvent(ctx.db, eventSource(ctx), 'passkey_counter_regressed', user.id);
    return null;
  }
  return {
    use: async (tx) => ((await recordPasskeyUse(tx, outcome.assertion)) ? 'passkey' : null),
    amr: [passkeyMethodReference(found.passkey)],
  };
}
