import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  passkeySignInSchema,
  registerSchema,
  secondStepPasskeyOptionsSchema,
  secondStepPasskeySchema,
  secondStepSchema,
  signInSchema,
  upstreamCallbackSchema,
  upstreamStartSchema,
} from '@accounts/validators';
import { realmProviders } from '../credentials/upstream/providers.js';
import { startAuthorization } from '../credentials/upstream/start.js';
import { assertionOptions } from '../credentials/webauthn.js';
import type { AccountConfig } from '../kernel/config.js';
import type { Procedures } from '../procedures.js';
import { answer, signIn } from './flow.js';
import {
  pendingLinkResult,
  secondStepResult,
  upstreamCallbackResult,
  upstreamKeptResult,
  upstreamProvidersResult,
  upstreamStartResult,
  userResult,
  webauthnOptionsResult,
} from './outputs.js';
import { passkeyMethod } from './passkey.js';
import { passwordMethod } from './password.js';
import { register } from './register.js';
import { livePendingSignIn, secondStepMethod } from './second-step.js';
import { finishUpstream, keepFormPost, pendingLinkSummary } from './upstream.js';

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
export function signInProcedures({ limitedProcedure, publicProcedure }: Procedures, config: AccountConfig) {
  return {
    account: accountSignIn(limitedProcedure, config),
    passkeys: passkeySignIn(limitedProcedure),
    upstream: upstreamSignIn(limitedProcedure, publicProcedure),
  };
}

/** Signing in with an upstream identity provider (wire namespace `upstream`): docs/oidc.md, "Sign in with other providers". */
function upstreamSignIn(
  limitedProcedure: Procedures['limitedProcedure'],
  publicProcedure: Procedures['publicProcedure'],
) {
  return {
    providers: publicProcedure
      .meta({
        summary:
          'The upstream identity providers people of the realm may sign in with: `id` (for /users/oauth/<id>/start) and the name of each.',
      })
      .output(upstreamProvidersResult)
      .query(async ({ ctx }) => ({
        providers: (await realmProviders(ctx.db, ctx.realm.id)).map((p) => ({
          id: p.slug,
          name: p.name,
          kind: p.kind,
        })),
      })),

    start: limitedProcedure('signIn')
      .meta({
        summary:
          "Start a sign-in at a provider of the realm: a redirect (303) to the provider's authorization endpoint, with PKCE (S256), `state` and `nonce`; the flow is kept on the server, bound to this browser (an HttpOnly cookie) and the realm, for ten minutes. `next` (a path of this site) is where the person lands after signing in.",
        problems: ['provider_unknown', 'upstream_unavailable', 'rate_limited'],
      })
      .input(upstreamStartSchema)
      .output(upstreamStartResult)
      .mutation(({ ctx, input }) => startAuthorization(ctx, input.provider, { next: input.next })),

    callback: limitedProcedure('signIn')
      .meta({
        summary:
          "Where the provider sends the person back (register `{realm origin}/users/oauth/<id>/callback`). The state must be this browser's, unused and under ten minutes old; the code is exchanged with the PKCE verifier, the RFC 9207 `iss` checked and the ID token validated (signature, iss, aud, exp, nonce). Then: a linked identity signs in (an account with two-step sign-in is asked for its second step: `401 second_factor_required`, as at POST /users/login); an address no account holds makes an account; an address an account holds is never signed in by itself: `409 upstream_link_required` (the identity waits ten minutes for that account's owner to sign in with their own factors, and is then linked), or `409 upstream_email_unverified` when the provider did not confirm it. A refused answer (`access_denied`, a bad state, a replayed code, a token that does not validate) is `401 upstream_failed`, counted like a wrong password. A browser is redirected (303) to `next`, or to the sign-in page with the problem's code.",
        problems: [
          'provider_unknown',
          'upstream_failed',
          'upstream_unavailable',
          'upstream_link_required',
          'upstream_email_unverified',
          'upstream_email_missing',
          'connection_taken',
          'second_factor_required',
          'email_not_verified',
          'too_many_attempts',
          'rate_limited',
        ],
      })
      .input(upstreamCallbackSchema)
      .output(upstreamCallbackResult)
      .mutation(({ ctx, input }) => finishUpstream(ctx, input)),

    keepFormPost: limitedProcedure('signIn')
      .meta({
        summary:
          "A provider's `form_post` answer (Apple's): another site's POST, which carries none of this site's cookies. The answer is kept on its flow, once, and the browser is redirected (303) to the callback's GET with the `state`, where its cookie binds it.",
        problems: ['rate_limited'],
      })
      .input(upstreamCallbackSchema)
      .output(upstreamKeptResult)
      .mutation(({ ctx, input }) => keepFormPost(ctx, input)),

    pendingLink: publicProcedure
      .meta({
        summary:
          'The identity this browser brought from a provider that waits for the account holding its address to sign in (null: none).',
      })
      .output(pendingLinkResult)
      .query(({ ctx }) => pendingLinkSummary(ctx)),
  };
}

function accountSignIn(limitedProcedure: Procedures['limitedProcedure'], config: AccountConfig) {
  return {
    register: limitedProcedure('register')
      .meta({
        summary:
          "Create an account in the realm of the Host, and sign it in (in a realm that requires a confirmed address: no session, emailVerificationRequired); a verification link is mailed unless the address's mail cap is reached.",
        problems: ['email_taken', 'rate_limited', 'server_busy'],
      })
      .input(registerSchema({ policy: config.passwordPolicy, estimator: null }))
      .output(userResult)
      .mutation(({ ctx, input }) => register(ctx, input)),

    signIn: limitedProcedure('signIn')
      .meta({
        summary:
          'Sign in with email and password. For an account with two-step sign-in the right password starts no session: `401 second_factor_required` with `methods`, and a pending sign-in (an HttpOnly cookie valid 5 minutes, or `pendingToken` in the body for a client that sends `X-Session-Delivery: token`) to complete at POST /users/login/second_factor.',
        problems: ['rate_limited', 'too_many_attempts', 'server_busy', 'email_not_verified', 'second_factor_required'],
      })
      .input(signInSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => answer(ctx, await signIn(ctx, passwordMethod, input))),

    /** The second step of a sign-in: the pending sign-in (cookie or `pending_token`) and a code. */
    signInSecondStep: limitedProcedure('signIn')
      .meta({
        summary:
          "Complete a sign-in with its second step: `code` (six digits from the authenticator app, or a recovery code `xxxxx-xxxxx`) and the pending sign-in (its cookie, or `pending_token`). Answers as POST /users/login does. A recovery code that completes it answers `recoveryCodeUsed: true` too (it is used up). A wrong, used or replayed code is `422` on `code`, counted by the lockout like a wrong password, with `attemptsLeft` once 2 or fewer tries remain; the last try (the fifth wrong code, or the lockout's limit) ends the pending sign-in: `429 too_many_codes`, `Retry-After` saying when this client may sign in again. An expired pending sign-in or another realm's is `401 sign_in_expired`: sign in again with the password.",
        problems: ['sign_in_expired', 'rate_limited', 'too_many_attempts', 'too_many_codes'],
      })
      .input(secondStepSchema)
      .output(secondStepResult)
      .mutation(async ({ ctx, input }) => {
        const pendingToken = input.pending_token ?? ctx.pendingSignInToken ?? null;
        const signedIn = answer(
          ctx,
          await signIn(ctx, secondStepMethod, { pendingToken, answer: { code: input.code } }),
        );
        // Only a recovery code's shape is checked as one (credentials/factors.ts): signed in with it, it was used up.
        return input.code.kind === 'recovery' ? { ...signedIn, recoveryCodeUsed: true as const } : signedIn;
      }),
  };
}

/** Signing in with a passkey, alone or as the second step (wire namespace `passkeys`). */
function passkeySignIn(limitedProcedure: Procedures['limitedProcedure']) {
  return {
    /** Options to sign in with a passkey alone: any discoverable credential of the realm. */
    signInOptions: limitedProcedure('passkeyOptions')
      .meta({
        summary:
          'Options for navigator.credentials.get() to sign in with a passkey alone (no email; user verification required).',
        problems: ['rate_limited'],
      })
      .output(webauthnOptionsResult)
      .mutation(async ({ ctx }) => ({ ...(await assertionOptions(ctx, 'sign_in', null)) })),

    /** Signs in with a passkey alone (user verification required): a complete sign-in. */
    signIn: limitedProcedure('signIn')
      .meta({
        summary:
          "Sign in with a passkey alone: `response` is the assertion's JSON. A complete sign-in (no password, no second step), answered as POST /users/login. A failed assertion is `422 passkey_rejected` and counts in the lockout per client like a wrong password.",
        problems: [
          'passkey_challenge_invalid',
          'passkey_rejected',
          'rate_limited',
          'too_many_attempts',
          'email_not_verified',
        ],
      })
      .input(passkeySignInSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => answer(ctx, await signIn(ctx, passkeyMethod, asAssertion(input.response)))),

    /** Options for the second step of a pending sign-in, done with one of the account's passkeys. */
    secondStepOptions: limitedProcedure('passkeyOptions')
      .meta({
        summary:
          "Options for the second step of a pending sign-in done with a passkey (the pending sign-in as its cookie or `pending_token`): the account's passkeys, user verification preferred.",
        problems: ['sign_in_expired', 'rate_limited'],
      })
      .input(secondStepPasskeyOptionsSchema)
      .output(webauthnOptionsResult)
      .mutation(async ({ ctx, input }) => {
        const { user } = await livePendingSignIn(ctx, input.pending_token ?? ctx.pendingSignInToken ?? null);
        return { ...(await assertionOptions(ctx, 'second_step', user)) };
      }),

    /** Completes a pending sign-in with a passkey: answers as a sign-in does. */
    secondStep: limitedProcedure('signIn')
      .meta({
        summary:
          'Complete a pending sign-in with a passkey (`response`, and `pending_token` unless the cookie is sent); answered as POST /users/login/second_factor (a failed assertion is `422 passkey_rejected`, counted like a wrong code).',
        problems: [
          'passkey_challenge_invalid',
          'passkey_rejected',
          'sign_in_expired',
          'rate_limited',
          'too_many_attempts',
          'too_many_codes',
        ],
      })
      .input(secondStepPasskeySchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => {
        const pendingToken = input.pending_token ?? ctx.pendingSignInToken ?? null;
        const passkey = asAssertion(input.response);
        return answer(ctx, await signIn(ctx, secondStepMethod, { pendingToken, answer: { passkey } }));
      }),
  };
}
