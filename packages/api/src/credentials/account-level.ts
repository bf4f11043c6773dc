import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { eq, sql } from 'drizzle-orm';
import { sessions, type Database, type Session, type User } from '@accounts/db';
import type { SecondStepCode } from '@accounts/validators';
import type { ClaimedCheck } from './lockout.js';
import { claimOwnCheck, PASSWORD_RECHECK_MS, passwordIsFresh, requireRecentPassword } from './current-password.js';
import { ago } from '../kernel/db-time.js';
import { fieldProblem, ProblemError, type FieldIssue } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import { endKnownDevices, knownDeviceOf, parseDeviceCredential } from './known-devices.js';
import { findPasskey, recordPasskeyUse, takeAssertionChallenge, verifyAssertion } from './webauthn.js';
import { endSessions } from '../records/sessions.js';
import type { Context } from '../kernel/context.js';
import { checkSecondStepCode, type CodeUse } from './factors.js';

// Authentication at the account's own level (NIST SP 800-63B-4 §4.1.2.1): what binding a second
// factor (new recovery codes, a passkey, an authenticator app) or removing the last one asks of a
// signed-in session. The password (current-password.ts: proved by this session within five
// minutes, or given now) and, once the account has two-step sign-in, a second factor proved within
// the same five minutes: the session's sign-in through its second step or with a passkey, a passkey
// confirmed since (confirmWithPasskey), or a code given with the request, used up here. Without
// one the answer is 422 `second_factor_recheck_required` on the code's field, so that a client
// knows to ask for a code (or a passkey) and try again. A session from before the account had a
// second factor never gets here: turning two-step sign-in on ends every session but the caller's.

type Auth = { user: User; session: Session };

/** How long a session's last second factor counts for binding or removing factors: the password's window. */
export const FACTOR_RECHECK_MS = PASSWORD_RECHECK_MS;

/** Whether the session proved a second factor within FACTOR_RECHECK_MS. */
export async function factorIsFresh(db: Database, sessionId: string): Promise<boolean> {
  const [row] = await db
    .select({ fresh: sql<boolean>`coalesce(${sessions.factorCheckedAt} > ${ago(FACTOR_RECHECK_MS)}, false)` })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  return row?.fresh ?? false;
}

/** The session proved a second factor just now (a code, a passkey, or the factor it bound). */
async function factorProved(db: Database, sessionId: string): Promise<void> {
  await db
    .update(sessions)
    .set({ factorCheckedAt: sql`now()` })
    .where(eq(sessions.id, sessionId));
}

const recheckRequired = (field: string): FieldIssue => ({ field, code: 'second_factor_recheck_required' });

/** Rolls back an action whose code was wrong, or that found the session's proof gone stale. */
class FactorRefused extends Error {
  constructor(readonly why: 'wrong' | 'missing') {
    super(why);
  }
}

/** The second factor of an action that runs its own transaction (new recovery codes, the app, removing a factor). */
export interface SecondFactor {
  /** Before the password is checked: 422 `second_factor_recheck_required` when no code came and the session's proof is stale. */
  ask(): Promise<void>;
  /**
   * In the action's transaction, before it changes anything: the code given is used up (a wrong,
   * used or replayed one rolls the transaction back), and is the session's proof from now; without
   * one, when `needed`, the session's proof must be fresh. A code given is always checked.
   */
  prove(tx: Database, needed?: boolean): Promise<void>;
  /**
   * Runs the action's transaction. `check` is the lockout's claim of the password that came with
   * it: a wrong code settles it as `second_factor_failed` (422 `code_incorrect` on the code's
   * field); a proof gone stale meanwhile withdraws it (422 `second_factor_recheck_required`).
   */
  transaction<T>(check: ClaimedCheck, act: (tx: Database) => Promise<T>): Promise<T>;
}

/** The second factor an action of `auth`'s session gives: `code` (sent in `field`), or the session's own proof. */
export function secondFactorOf(
  ctx: Context,
  auth: Auth,
  code: SecondStepCode | undefined,
  field = 'code',
): SecondFactor {
  const missing = () => new ProblemError('validation_failed', { fields: [recheckRequired(field)] });
  // The code, checked before the transaction (a recovery code is compared on the hashing pool).
  let using: CodeUse | null = null;
  return {
    async ask() {
      if (code === undefined && !(await factorIsFresh(ctx.db, auth.session.id))) throw missing();
    },
    async prove(tx, needed = true) {
      if (code !== undefined) {
        if (!using || !(await using(tx))) throw new FactorRefused('wrong');
        await factorProved(tx, auth.session.id);
        return;
      }
      if (needed && !(await factorIsFresh(tx, auth.session.id))) throw new FactorRefused('missing');
    },
    async transaction(check, act) {
      if (code !== undefined)
        using = await check.during(() => checkSecondStepCode(ctx.db, ctx.vault, auth.user.id, code, ctx.log));
      try {
        return await ctx.db.transaction(act);
      } catch (err) {
        if (!(err instanceof FactorRefused)) throw err;
        if (err.why === 'missing') {
          await check.withdraw();
          throw missing();
        }
        await check.failed('second_factor_failed');
        throw fieldProblem(field, 'code_incorrect');
      }
    },
  };
}

/**
 * The account's level for an action with no transaction of its own (asking to add a passkey):
 * the password (requireRecentPassword) and, with two-step sign-in, a second factor. What is
 * missing is said at once: 422 with `password_recheck_required` on `current_password` and/or
 * `second_factor_recheck_required` on `code`. A code given is checked under the lockout (wrong:
 * `second_factor_failed`, 422 `code_incorrect`) and counts as the session's proof from now.
 */
export async function requireAccountLevel(
  ctx: Context,
  auth: Auth,
  proof: { current_password?: string; code?: SecondStepCode },
): Promise<void> {
  const missing: FieldIssue[] = [];
  if (proof.current_password === undefined && !(await passwordIsFresh(ctx.db, auth.session.id)))
    missing.push({ field: 'current_password', code: 'password_recheck_required' });
  if (auth.user.twoStep && proof.code === undefined && !(await factorIsFresh(ctx.db, auth.session.id)))
    missing.push(recheckRequired('code'));
  if (missing.length) throw new ProblemError('validation_failed', { fields: missing });
  await requireRecentPassword(ctx, auth, proof.current_password);
  if (proof.code === undefined) return;
  const factor = secondFactorOf(ctx, auth, proof.code);
  const { check } = await claimOwnCheck(ctx, auth, 'second_factor_failed');
  await factor.transaction(check, (tx) => factor.prove(tx));
  // Proved: nothing happened to the account yet, so the claim leaves no event.
  await check.withdraw();
}

/**
 * Confirms a second factor with one of the account's passkeys (the options: the `second_step`
 * ceremony's, for this account), for a signed-in session about to bind or remove a factor: the
 * session's proof for the next five minutes. The challenge is used up first (an expired or used one
 * is 400 `passkey_challenge_invalid`); an assertion that does not hold is 422 `passkey_rejected`,
 * counted by the lockout as `second_factor_failed`.
 */
export async function confirmWithPasskey(
  ctx: Context,
  auth: Auth,
  response: AuthenticationResponseJSON,
): Promise<void> {
  const { user, session } = auth;
  const challenge = await takeAssertionChallenge(ctx, 'second_step', response, user.id);
  const { check } = await claimOwnCheck(ctx, auth, 'second_factor_failed');
  const refuse = async () => {
    await check.failed();
    return new ProblemError('passkey_rejected');
  };
  const found = await findPasskey(ctx.db, ctx.realm.id, response.id);
  if (!found || found.user.id !== user.id) throw await refuse();
  const outcome = await check.during(() => verifyAssertion(ctx, found.passkey, response, challenge, false));
  if (!outcome.ok) {
    if (outcome.counterWentBack) await recordEvent(ctx.db, eventSource(ctx), 'passkey_counter_regressed', user.id);
    throw await refuse();
  }
  const held = await ctx.db.transaction(async (tx) => {
    // Of two uses of one assertion, one wins.
    if (!(await recordPasskeyUse(tx, outcome.assertion))) return false;
    await factorProved(tx, session.id);
    return true;
  });
  if (!held) throw await refuse();
  // Proved: nothing happened to the account yet, so the claim leaves no event.
  await check.withdraw();
}

/**
 * Two-step sign-in just turned on (the app, or a first passkey), in the transaction that turned it
 * on: every other session and known device of the account ends, since the password alone let them
 * in, as a password change ends them (the caller's stays); the caller's session, which bound the
 * factor, counts as having proved it. Returns how many sessions ended (recorded as `sessions_revoked`).
 */
export async function twoStepTurnedOn(tx: Database, ctx: Context, auth: Auth): Promise<number> {
  const { user, session } = auth;
  const knownDevice = await knownDeviceOf(tx, user.id, parseDeviceCredential(ctx.deviceCredential));
  const revoked = await endSessions(tx, user.id, session.id);
  await endKnownDevices(tx, user.id, knownDevice);
  await factorProved(tx, session.id);
  if (revoked > 0) await recordEvent(tx, eventSource(ctx), 'sessions_revoked', user.id);
  return revoked;
}
