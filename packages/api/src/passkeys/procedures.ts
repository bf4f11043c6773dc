import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { and, eq } from 'drizzle-orm';
import { isUniqueViolation, passkeys, users } from '@accounts/db';
import {
  addPasskeySchema,
  passkeyRecheckSchema,
  passkeyRegistrationOptionsSchema,
  removePasskeySchema,
  renamePasskeySchema,
} from '@accounts/validators';
import {
  confirmWithPasskey,
  requireAccountLevel,
  secondFactorOf,
  twoStepTurnedOn,
} from '../credentials/account-level.js';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { describeDevice } from '../kernel/device.js';
import { ProblemError } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import { rowId } from '../kernel/ids.js';
import { queueTwoStepNotice } from '../mail/notices.js';
import { okResult } from '../kernel/outputs.js';
import { passkeyKind } from '../credentials/passkey-kinds.js';
import {
  assertionOptions,
  passkeysOf,
  registrationOptions,
  verifyRegistration,
  type Passkey,
} from '../credentials/webauthn.js';
import { newRecoveryCodes, recoveryCodesLeft, storeRecoveryCodes } from '../credentials/recovery-codes.js';
import type { Procedures } from '../procedures.js';
import { afterFactorRemoved, hasSecondFactor, refreshTwoStep } from '../credentials/factors.js';
import { lockIfHashUnchanged } from '../records/users.js';
import { webauthnOptionsResult } from '../sign-in/outputs.js';
import { passkeyAddedResult, passkeyListResult } from './outputs.js';

const view = (p: Passkey) => ({
  id: p.id,
  name: p.name,
  kind: passkeyKind(p.aaguid),
  synced: p.deviceType === 'multiDevice' && p.backedUp,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
});

// The zod shapes of the WebAuthn answers are those of @simplewebauthn's types, checked for shape
// and size; their contents are the verification's to judge.
const asRegistration = (r: unknown) => r as RegistrationResponseJSON;
const asAssertion = (r: unknown) => r as AuthenticationResponseJSON;

/**
 * Passkeys: the account's own (list, add, rename, remove), and a signed-in session's second factor
 * confirmed with one (signing in with one is sign-in/'s). A passkey is a second factor: the first one turns two-step sign-in on (with recovery codes,
 * if the account has none, and every other session ends), removing the last factor turns it off.
 * Adding one, and removing the last factor, ask for the account's level (account-level.ts).
 */
export function passkeyProcedures({ authedProcedure, accountWriteProcedure, authedLimitedProcedure }: Procedures) {
  return {
    passkeys: {
      list: authedProcedure
        .meta({
          summary:
            "The account's passkeys: name, the authenticator's kind where its AAGUID is known, synced or not, created and last used.",
        })
        .output(passkeyListResult)
        .query(async ({ ctx }) => ({ passkeys: (await passkeysOf(ctx.db, ctx.auth.user.id)).map(view) })),

      /**
       * Options to add a passkey, at the account's level: a session whose password was last proved
       * more than five minutes ago (or never: a passkey sign-in) gives `current_password` (422
       * `password_recheck_required`); with two-step sign-in on, one that proved no second factor in
       * that time gives `code` (422 `second_factor_recheck_required`), or confirms a passkey first
       * (`recheck`). Both are checked and counted like every password check. The options' challenge,
       * good for five minutes, is what `add` holds the proof by.
       */
      registrationOptions: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            "Options for navigator.credentials.create() to add a passkey (a discoverable credential; the realm's host is the RP ID). A session whose password was last proved more than 5 minutes ago (or never: a passkey sign-in) sends `current_password` (else `422 password_recheck_required` on it). With two-step sign-in on, a session that proved no second factor in the last 5 minutes (its sign-in's second step, a passkey sign-in, POST /users/passkeys/recheck) sends `code`, an app code or a recovery code (else `422 second_factor_recheck_required` on it; both asks come in one answer).",
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(passkeyRegistrationOptionsSchema)
        .output(webauthnOptionsResult)
        .mutation(async ({ ctx, input }) => {
          await requireAccountLevel(ctx, ctx.auth, input);
          return { ...(await registrationOptions(ctx, ctx.auth.user)) };
        }),

      /**
       * Adds the passkey an authenticator made for the options' challenge. The account's first second
       * factor turns two-step sign-in on: every other session and known device of the account ends.
       */
      add: accountWriteProcedure
        .meta({
          summary:
            "Add the passkey: `response` is the JSON of the new credential (PublicKeyCredential.toJSON()), `name` optional. The first second factor of the account turns two-step sign-in on, ends every other session and known device of the account (the caller's stays), and answers ten `recoveryCodes` (only if it has none). `400 passkey_challenge_invalid` for an expired or used challenge, `422 passkey_rejected` when the answer does not verify.",
          problems: ['passkey_challenge_invalid', 'passkey_rejected', 'rate_limited'],
        })
        .input(addPasskeySchema)
        .output(passkeyAddedResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          const made = await verifyRegistration(ctx, user, asRegistration(input.response));
          const name =
            input.name ??
            passkeyKind(made.aaguid) ??
            describeDevice(ctx.userAgent ?? null, { locale: ctx.locale }) ??
            'Passkey';
          // The account's first second factor comes with recovery codes, as the app's does: hashed
          // before the transaction (recovery-codes.ts), stored in it if the account still has none.
          const fresh =
            (await recoveryCodesLeft(ctx.db, user.id)) === 0 ? await newRecoveryCodes(ctx.vault, user.id) : null;
          const added = await ctx.db
            .transaction(async (tx) => {
              // Held to the end: of two first passkeys added at once, one turns the step on.
              const [before] = await tx
                .select({ twoStep: users.twoStep })
                .from(users)
                .where(eq(users.id, user.id))
                .for('update');
              const [row] = await tx
                .insert(passkeys)
                .values({ ...made, userId: user.id, name })
                .returning();
              await refreshTwoStep(tx, user.id);
              if (!before?.twoStep) await twoStepTurnedOn(tx, ctx, ctx.auth);
              const codes =
                fresh && (await recoveryCodesLeft(tx, user.id)) === 0
                  ? await storeRecoveryCodes(tx, user.id, fresh)
                  : undefined;
              await recordEvent(tx, eventSource(ctx), 'passkey_added', user.id);
              await queueTwoStepNotice(tx, ctx, user, 'passkey_added');
              return { passkey: view(row!), recoveryCodes: codes };
            })
            .catch((err: unknown) => {
              // The same credential twice (the options exclude the account's own, a browser may not).
              if (isUniqueViolation(err)) throw new ProblemError('passkey_rejected');
              throw err;
            });
          return added;
        }),

      rename: accountWriteProcedure
        .meta({
          summary:
            "Rename one of the account's passkeys (`passkey_id`, `name`); another account's or an unknown id is 404.",
          problems: ['not_found', 'rate_limited'],
        })
        .input(renamePasskeySchema)
        .output(okResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          const id = rowId(input.passkey_id);
          if (!id) throw new ProblemError('not_found');
          const renamed = await ctx.db.transaction(async (tx) => {
            const rows = await tx
              .update(passkeys)
              .set({ name: input.name })
              .where(and(eq(passkeys.id, id), eq(passkeys.userId, user.id)))
              .returning({ id: passkeys.id });
            if (rows.length) await recordEvent(tx, eventSource(ctx), 'passkey_renamed', user.id);
            return rows.length === 1;
          });
          if (!renamed) throw new ProblemError('not_found');
          return { ok: true as const };
        }),

      /**
       * Removes a passkey (current password required). Removing the last second factor turns
       * two-step sign-in off, so it asks for a second factor too: this session's, fresh, a `code`
       * (app or recovery code), or a passkey confirmed first (`recheck`).
       */
      remove: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Remove a passkey (`passkey_id`, `current_password`, counted like every password check). Removing the last second factor turns two-step sign-in off, so it needs a second factor too: a session that proved one in the last 5 minutes (its second step, a passkey sign-in, POST /users/passkeys/recheck), or `code` (an app code or a recovery code, counted like a password when wrong); else `422 second_factor_recheck_required` on `code`.',
          problems: ['not_found', 'rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(removePasskeySchema)
        .output(okResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          const id = rowId(input.passkey_id);
          if (!id) throw new ProblemError('not_found');
          const mine = and(eq(passkeys.id, id), eq(passkeys.userId, user.id));
          const [found] = await ctx.db.select({ id: passkeys.id }).from(passkeys).where(mine);
          if (!found) throw new ProblemError('not_found');
          ctx.hasher.assertCapacity();
          const factor = secondFactorOf(ctx, ctx.auth, input.code);
          if (!(await hasSecondFactor(ctx.db, user.id, id))) await factor.ask();
          const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
          const outcome = await factor.transaction(check, async (tx) => {
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id))) return 'stale';
            const gone = await tx.delete(passkeys).where(mine).returning({ id: passkeys.id });
            if (!gone.length) return 'gone';
            // Decided under the lock: the last factor (another may have gone meanwhile) takes the step with it.
            await factor.prove(tx, !(await hasSecondFactor(tx, user.id)));
            await afterFactorRemoved(tx, user.id);
            await check.passed(tx, 'passkey_removed');
            await queueTwoStepNotice(tx, ctx, user, 'passkey_removed');
            return 'removed';
          });
          if (outcome === 'stale') throw await incorrect();
          if (outcome === 'gone') {
            await check.withdraw();
            throw new ProblemError('not_found');
          }
          return { ok: true as const };
        }),

      /**
       * Options to confirm a second factor with one of the account's passkeys, for a signed-in session
       * asked for one (`second_factor_recheck_required`). 409 `two_step_off` without two-step sign-in.
       */
      recheckOptions: authedLimitedProcedure('passkeyOptions')
        .meta({
          summary:
            "Options for navigator.credentials.get() to confirm a second factor with one of the account's passkeys (user verification preferred), for a signed-in session asked for one (`second_factor_recheck_required`). `409 two_step_off` without two-step sign-in.",
          problems: ['two_step_off', 'rate_limited'],
        })
        .output(webauthnOptionsResult)
        .mutation(async ({ ctx }) => {
          if (!ctx.auth.user.twoStep) throw new ProblemError('two_step_off');
          return { ...(await assertionOptions(ctx, 'second_step', ctx.auth.user)) };
        }),

      /** Confirms a second factor with a passkey: this session's proof for the next five minutes. */
      recheck: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            "Confirm a second factor with a passkey (`response`, the assertion's JSON): for the next 5 minutes this session may bind or remove factors without a code. `400 passkey_challenge_invalid` for an expired or used challenge; `422 passkey_rejected` when the assertion does not hold, counted by the lockout like a wrong code.",
          problems: ['passkey_challenge_invalid', 'passkey_rejected', 'rate_limited', 'too_many_attempts'],
        })
        .input(passkeyRecheckSchema)
        .output(okResult)
        .mutation(async ({ ctx, input }) => {
          await confirmWithPasskey(ctx, ctx.auth, asAssertion(input.response));
          return { ok: true as const };
        }),
    },
  };
}
