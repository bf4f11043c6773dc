import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { lockoutSubject } from '../credentials/lockout.js';
import { passkeyMethodReference } from '../credentials/passkey-kinds.js';
import {
  findPasskey,
  recordPasskeyUse,
  takeAssertionChallenge,
  unknownPasskeyKey,
  verifyAssertion,
  type Passkey,
} from '../credentials/webauthn.js';
import { ProblemError } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import type { SignInMethod } from './flow.js';

type Found = { challenge: string; passkey: Passkey | null };

/**
 * A passkey alone: a discoverable credential of this realm, verified by the person (user
 * verification required), is a whole sign-in (no password, no second step). The challenge is used
 * up first (an expired or replayed one is 400 `passkey_challenge_invalid`, not a failed try); a
 * failed assertion counts like a wrong password and is 422 `passkey_rejected` whether the passkey
 * is unknown, another realm's, its account disabled or its signature wrong.
 */
export const passkeyMethod: SignInMethod<AuthenticationResponseJSON, Found> = {
  failure: 'passkey_failed',
  completes: 'whole',
  async identify(ctx, response) {
    const challenge = await takeAssertionChallenge(ctx, 'sign_in', response, null);
    const found = await findPasskey(ctx.db, ctx.realm.id, response.id);
    const subject = found
      ? lockoutSubject(ctx.realm.id, found.user.email, found.user.id)
      : { userId: null, key: unknownPasskeyKey(ctx.realm.id, response.id) };
    return { user: found?.user ?? null, subject, state: { challenge, passkey: found?.passkey ?? null } };
  },
  async verify(ctx, { user, state }, response) {
    // The user handle, where the authenticator gives it, must be the account's.
    const handle = response.response.userHandle;
    if (!user || !state.passkey || user.disabledAt || (handle !== undefined && handle !== user.passkeyHandle))
      return null;
    const outcome = await verifyAssertion(ctx, state.passkey, response, state.challenge, true);
    if (!outcome.ok) {
      if (outcome.counterWentBack) await recordEvent(ctx.db, eventSource(ctx), 'passkey_counter_regressed', user.id);
      return null;
    }
    return { holds: (tx) => recordPasskeyUse(tx, outcome.assertion), amr: [passkeyMethodReference(state.passkey)] };
  },
  refusal: () => new ProblemError('passkey_rejected'),
};
