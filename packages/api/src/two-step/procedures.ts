import { and, eq, isNotNull } from 'drizzle-orm';
import { totpCredentials } from '@accounts/db';
import { disableTotpSchema, enableTotpSchema, regenerateRecoveryCodesSchema } from '@accounts/validators';
import { secondFactorOf, twoStepTurnedOn } from '../credentials/account-level.js';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { fieldProblem, ProblemError } from '../kernel/errors.js';
import { queueTwoStepNotice } from '../mail/notices.js';
import { okResult } from '../kernel/outputs.js';
import { DEFAULT_REALM_SLUG } from '../records/realms.js';
import { newRecoveryCodes, storeRecoveryCodes } from '../credentials/recovery-codes.js';
import { matchingStep, newTotpSecret, otpauthUri, qrCodeImage } from '../credentials/totp.js';
import type { Context } from '../kernel/context.js';
import type { Procedures } from '../procedures.js';
import { openSecret, refreshTwoStep, removeTotp } from '../credentials/factors.js';
import type { Database } from '@accounts/db';
import { lockIfHashUnchanged } from '../records/users.js';
import { recoveryCodesResult, totpSetupResult } from './outputs.js';

/** What an authenticator app lists the account under: the product, and the realm unless it is the default. */
const issuerOf = (ctx: Context) =>
  ctx.realm.slug === DEFAULT_REALM_SLUG ? ctx.config.productName : `${ctx.config.productName} (${ctx.realm.name})`;

/** Whether the account's authenticator app is on. */
async function totpIsOn(db: Database, userId: string): Promise<boolean> {
  const rows = await db
    .select({ userId: totpCredentials.userId })
    .from(totpCredentials)
    .where(and(eq(totpCredentials.userId, userId), isNotNull(totpCredentials.secret)));
  return rows.length === 1;
}

/**
 * Two-step sign-in's settings: set up an authenticator app, turn it on with a code it shows,
 * turn it off, make new recovery codes. Changing anything needs the current password, counted
 * by the lockout like every password check, and once two-step sign-in is on a second factor too
 * (account-level.ts); each change is an account event and a mail notice.
 */
export function twoStepProcedures({ accountWriteProcedure, authedLimitedProcedure, authedProcedure }: Procedures) {
  return {
    twoStep: {
      /**
       * The set-up waiting for its code, shown again (a page that asks for the code after a wrong
       * one): the same secret, never a new one; null when none is pending or an app is on.
       */
      pendingTotp: authedProcedure.output(totpSetupResult.nullable()).query(async ({ ctx }) => {
        const { user } = ctx.auth;
        if (user.twoStep && (await totpIsOn(ctx.db, user.id))) return null;
        const [row] = await ctx.db
          .select({ pending: totpCredentials.pendingSecret })
          .from(totpCredentials)
          .where(eq(totpCredentials.userId, user.id));
        const secret = row?.pending ? openSecret(ctx.vault, row.pending, user.id, ctx.log) : null;
        if (secret === null) return null;
        const uri = otpauthUri(secret, issuerOf(ctx), user.email);
        return { secret, uri, qrCode: await qrCodeImage(uri) };
      }),

      /**
       * A new secret for an authenticator app, pending until `enableTotp` confirms it: nothing is
       * active yet, and a second set-up replaces the pending secret. 409 `two_step_on` when an app
       * is already on (turn it off first).
       */
      setupTotp: accountWriteProcedure
        .meta({
          summary:
            'Start setting up an authenticator app (no fields): a new secret (base32, 160 bits), its `otpauth://` URI and the URI as a QR code (an SVG `data:` URL). Nothing is active until POST /users/totp/enable; a second call replaces the pending secret. `409 two_step_on` while an app is on.',
          problems: ['two_step_on', 'rate_limited'],
        })
        .output(totpSetupResult)
        .mutation(async ({ ctx }) => {
          const { user } = ctx.auth;
          if (user.twoStep && (await totpIsOn(ctx.db, user.id))) throw new ProblemError('two_step_on');
          const secret = newTotpSecret();
          const pendingSecret = ctx.vault.seal(secret, user.id);
          await ctx.db
            .insert(totpCredentials)
            .values({ userId: user.id, pendingSecret })
            .onConflictDoUpdate({ target: totpCredentials.userId, set: { pendingSecret } });
          const uri = otpauthUri(secret, issuerOf(ctx), user.email);
          return { secret, uri, qrCode: await qrCodeImage(uri) };
        }),

      /**
       * Turns the pending app on with a code it shows and the password; answers the ten recovery
       * codes. When this turns two-step sign-in on, every other session and known device of the
       * account ends. An account already on through passkeys binds the app with a second factor
       * too: this session's, fresh, or a recovery code (`recovery_code`).
       */
      enableTotp: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            "Turn the authenticator app on: `code` (what the app shows for the pending secret) and `current_password` (counted by the lockout). Answers ten single-use `recoveryCodes`, shown this once. When this turns two-step sign-in on, every other session and known device of the account ends (the caller's stays). An account already on through passkeys binds the app with a second factor too: a session that signed in through its second step (or with a passkey, or confirmed one at POST /users/passkeys/recheck) in the last 5 minutes, or `recovery_code` (else `422 second_factor_recheck_required` on `recovery_code`). A wrong password or code is `422` on that field and changes nothing; `409 totp_not_set_up` without a set-up.",
          problems: ['two_step_on', 'totp_not_set_up', 'rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(enableTotpSchema)
        .output(recoveryCodesResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          ctx.hasher.assertCapacity();
          if (user.twoStep && (await totpIsOn(ctx.db, user.id))) throw new ProblemError('two_step_on');
          const mine = eq(totpCredentials.userId, user.id);
          const [row] = await ctx.db
            .select({ pending: totpCredentials.pendingSecret })
            .from(totpCredentials)
            .where(mine);
          const pending = row?.pending;
          if (!pending) throw new ProblemError('totp_not_set_up');
          const factor = secondFactorOf(ctx, ctx.auth, input.recovery_code, 'recovery_code');
          if (user.twoStep) await factor.ask();
          const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
          const secret = openSecret(ctx.vault, pending, user.id, ctx.log);
          const step = secret === null ? null : matchingStep(secret, input.code);
          const wrongCode = async () => {
            // The password was right: only the code is refused (a typo, or a clock far off).
            await check.withdraw();
            return fieldProblem('code', 'code_incorrect');
          };
          if (step === null) throw await wrongCode();
          const fresh = await check.during(() => newRecoveryCodes(ctx.vault, user.id));
          const codes = await factor.transaction(check, async (tx) => {
            const locked = await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id);
            if (!locked) return 'stale';
            // Only the secret this code was checked against: a set-up that replaced it meanwhile wins.
            const [on] = await tx
              .update(totpCredentials)
              .set({ secret: pending, pendingSecret: null, lastStep: step, enabledAt: new Date() })
              .where(and(mine, eq(totpCredentials.pendingSecret, pending)))
              .returning({ userId: totpCredentials.userId });
            if (!on) return 'replaced';
            // Already on (passkeys): the app is bound at the account's level.
            await factor.prove(tx, locked.twoStep);
            await refreshTwoStep(tx, user.id);
            await check.passed(tx, 'two_step_enabled');
            if (!locked.twoStep) await twoStepTurnedOn(tx, ctx, ctx.auth);
            const issued = await storeRecoveryCodes(tx, user.id, fresh);
            await queueTwoStepNotice(tx, ctx, user, 'enabled');
            return issued;
          });
          if (codes === 'stale') throw await incorrect();
          if (codes === 'replaced') throw await wrongCode();
          return { recoveryCodes: codes };
        }),

      /**
       * Turns the authenticator app off with the password and a current code or a recovery code
       * (always, however fresh the session's proof): its secret goes, and with the last factor (no
       * passkey left) the step and its recovery codes. 409 `totp_off` when the app is not on. A
       * wrong code counts like a wrong password.
       */
      disableTotp: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Turn the authenticator app off: `current_password` and `code` (a current code or a recovery code). Its secret is deleted; when no passkey is left, two-step sign-in turns off and the recovery codes go too. A wrong code is `422` on `code`, counted like a wrong password. `409 totp_off` when the app is not on.',
          problems: ['totp_off', 'rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(disableTotpSchema)
        .output(okResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          ctx.hasher.assertCapacity();
          if (!user.twoStep || !(await totpIsOn(ctx.db, user.id))) throw new ProblemError('totp_off');
          const factor = secondFactorOf(ctx, ctx.auth, input.code);
          const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
          const outcome = await factor.transaction(check, async (tx) => {
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id))) return 'stale';
            await factor.prove(tx);
            await removeTotp(tx, user.id);
            await check.passed(tx, 'two_step_disabled');
            await queueTwoStepNotice(tx, ctx, user, 'disabled');
            return 'off';
          });
          if (outcome === 'stale') throw await incorrect();
          return { ok: true as const };
        }),

      /**
       * Ten new recovery codes with the password and a second factor (this session's, fresh, or
       * `code`); the old ones stop working at once.
       */
      regenerateRecoveryCodes: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Ten new recovery codes (`current_password`); the old ones stop working at once. A second factor too: a session that signed in through its second step (or with a passkey, or confirmed one at POST /users/passkeys/recheck) in the last 5 minutes, or `code` (an app code or a recovery code, counted like a password when wrong); else `422 second_factor_recheck_required` on `code`, before the password is checked. `409 two_step_off` when two-step sign-in is off.',
          problems: ['two_step_off', 'rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(regenerateRecoveryCodesSchema)
        .output(recoveryCodesResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          ctx.hasher.assertCapacity();
          if (!user.twoStep) throw new ProblemError('two_step_off');
          const factor = secondFactorOf(ctx, ctx.auth, input.code);
          await factor.ask();
          const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
          const fresh = await check.during(() => newRecoveryCodes(ctx.vault, user.id));
          const codes = await factor.transaction(check, async (tx) => {
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id))) return null;
            await factor.prove(tx);
            await check.passed(tx, 'recovery_codes_regenerated');
            const issued = await storeRecoveryCodes(tx, user.id, fresh);
            await queueTwoStepNotice(tx, ctx, user, 'recovery_codes_regenerated');
            return issued;
          });
          if (!codes) throw await incorrect();
          return { recoveryCodes: codes };
        }),
    },
  };
}
