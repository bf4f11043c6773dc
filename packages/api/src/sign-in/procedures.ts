import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  passkeySignInSchema,
  registerSchema,
  secondStepPasskeyOptionsSchema,
  secondStepPasskeySchema,
  secondStepSchema,
  signInSchema,
} from '@accounts/validators';
import { assertionOptions } from '../credentials/webauthn.js';
import type { AccountConfig } from '../kernel/config.js';
import type { Procedures } from '../procedures.js';
import { answer, signIn } from './flow.js';
import { userResult, webauthnOptionsResult } from './outputs.js';
import { passkeyMethod } from './passkey.js';
import { passwordMethod } from './password.js';
import { register } from './register.js';
import { livePendingSignIn, secondStepMethod } from './second-step.js';

// The zod shape of a WebAuthn assertion is @simplewebauthn's type, checked for shape and size; its
// contents are the verification's to judge.
const asAssertion = (r: unknown) => r as AuthenticationResponseJSON;

/**
 * The ways into a session: registration, the password and its second step (wire namespace
 * `account`), a passkey alone or as the second step (namespace `passkeys`). Each
 * input is a static schema (the password policy comes from the configuration); how easy a new
 * password is to guess once the realm and the account are known is checked in the resolver, in
 * full (the schema leaves that rule out: estimator null).
 */
export function signInProcedures({ limitedProcedure }: Procedures, config: AccountConfig) {
  return { account: accountSignIn(limitedProcedure, config), passkeys: passkeySignIn(limitedProcedure) };
}

function accountSignIn(limitedProcedure: Procedures['limitedProcedure'], config: AccountConfig) {
  return {
    register: limitedProcedure('register')
      .input(registerSchema({ policy: config.passwordPolicy, estimator: null }))
      .output(userResult)
      .mutation(({ ctx, input }) => register(ctx, input)),

    signIn: limitedProcedure('signIn')
      .input(signInSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => answer(ctx, await signIn(ctx, passwordMethod, input))),

    /** The second step of a sign-in: the pending sign-in (cookie or `pending_token`) and a code. */
    signInSecondStep: limitedProcedure('signIn')
      .input(secondStepSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => {
        const pendingToken = input.pending_token ?? ctx.pendingSignInToken ?? null;
        return answer(ctx, await signIn(ctx, secondStepMethod, { pendingToken, answer: { code: input.code } }));
      }),
  };
}

/** Signing in with a passkey, alone or as the second step (wire namespace `passkeys`). */
function passkeySignIn(limitedProcedure: Procedures['limitedProcedure']) {
  return {
    /** Options to sign in with a passkey alone: any discoverable credential of the realm. */
    signInOptions: limitedProcedure('passkeyOptions')
      .output(webauthnOptionsResult)
      .mutation(async ({ ctx }) => ({ ...(await assertionOptions(ctx, 'sign_in', null)) })),

    /** Signs in with a passkey alone (user verification required): a complete sign-in. */
    signIn: limitedProcedure('signIn')
      .input(passkeySignInSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => answer(ctx, await signIn(ctx, passkeyMethod, asAssertion(input.response)))),

    /** Options for the second step of a pending sign-in, done with one of the account's passkeys. */
    secondStepOptions: limitedProcedure('passkeyOptions')
      .input(secondStepPasskeyOptionsSchema)
      .output(webauthnOptionsResult)
      .mutation(async ({ ctx, input }) => {
        const { user } = await livePendingSignIn(ctx, input.pending_token ?? ctx.pendingSignInToken ?? null);
        return { ...(await assertionOptions(ctx, 'second_step', user)) };
      }),

    /** Completes a pending sign-in with a passkey: answers as a sign-in does. */
    secondStep: limitedProcedure('signIn')
      .input(secondStepPasskeySchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => {
        const pendingToken = input.pending_token ?? ctx.pendingSignInToken ?? null;
        const passkey = asAssertion(input.response);
        return answer(ctx, await signIn(ctx, secondStepMethod, { pendingToken, answer: { passkey } }));
      }),
  };
}
