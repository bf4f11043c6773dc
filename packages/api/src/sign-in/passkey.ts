import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { User } from '@accounts/db';
import { addressClient, claimPasswordCheck, deviceClient, lockoutSubject } from '../credentials/lockout.js';
import { ProblemError } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import {
  findPasskey,
  recordPasskeyUse,
  takeAssertionChallenge,
  unknownPasskeyKey,
  verifyAssertion,
} from '../credentials/webauthn.js';
import { realmRequiresVerifiedEmail } from '../records/realm-settings.js';
import { presentedDevice, signInKnown, type Started } from './flow.js';
import type { Context } from '../procedures.js';

/**
 * Signs in with a passkey alone: a discoverable credential of this realm, verified by the person
 * (user verification required), is a complete sign-in (no password, no second step) with the same
 * session, known-device credential and new-device notice as a password sign-in. The challenge is
 * used up first (an expired or replayed one is 400 `passkey_challenge_invalid`); a failed
 * assertion counts in the lockout per client like a wrong password, and is 422 `passkey_rejected`
 * whether the passkey is unknown, another realm's, disabled or its signature wrong.
 */
export async function signInWithPasskey(
  ctx: Context,
  response: AuthenticationResponseJSON,
): Promise<{ user: User; started: Started }> {
  const challenge = await takeAssertionChallenge(ctx, 'sign_in', response, null);
  const found = await findPasskey(ctx.db, ctx.realm.id, response.id);
  const subject = found
    ? lockoutSubject(ctx.realm.id, found.user.email, found.user.id)
    : { userId: null, key: unknownPasskeyKey(ctx.realm.id, response.id) };
  const device = await presentedDevice(ctx, found?.user.id ?? null);
  const check = await claimPasswordCheck(
    ctx.db,
    eventSource(ctx),
    'passkey_failed',
    { subject, client: device.known ? deviceClient(device.known) : addressClient(ctx.clientIp), accountCap: true },
    ctx.config,
  );
  const refuse = async () => {
    await check.failed();
    return new ProblemError('passkey_rejected');
  };
  // The user handle, where the authenticator gives it, must be the account's.
  const handle = response.response.userHandle;
  if (!found || found.user.disabledAt || (handle !== undefined && handle !== found.user.passkeyHandle))
    throw await refuse();
  const { user } = found;
  const outcome = await check.during(() => verifyAssertion(ctx, found.passkey, response, challenge, true));
  if (!outcome.ok) {
    if (outcome.counterWentBack) await recordEvent(ctx.db, eventSource(ctx), 'passkey_counter_regressed', user.id);
    throw await refuse();
  }
  if (!user.emailVerifiedAt && (await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id))) {
    await check.passed(ctx.db, 'sign_in_unverified');
    throw new ProblemError('email_not_verified');
  }
  const started = await signInKnown(ctx, user, check, device, {
    holds: (tx) => recordPasskeyUse(tx, outcome.assertion),
    passwordless: true,
  });
  if (!started) throw await refuse();
  return { user, started };
}
