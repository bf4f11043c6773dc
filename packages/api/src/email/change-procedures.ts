import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, sql } from 'drizzle-orm';
import { isUniqueViolation, sessions, users, type Database } from '@accounts/db';
import { normalizeEmail } from '@accounts/validators';
import { changeEmailSchema, confirmEmailChangeSchema } from '@accounts/validators/account-links';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { fieldProblem } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import {
  queueEmailChange,
  queueEmailChangeAttempt,
  queueEmailChanged,
  queueEmailChangeRequested,
} from '../mail/notices.js';
import { okResult } from '../kernel/outputs.js';
import { endSessions } from '../records/sessions.js';
import {
  consumeTokenRow,
  hashToken,
  invalidateTokens,
  issueToken,
  newestOutstandingLink,
  peekTokenRow,
} from '../records/tokens.js';
import type { Procedures } from '../procedures.js';
import { findUserByEmail, lockIfHashUnchanged } from '../records/users.js';
import { emailChangedResult, emailChangeLinkResult, pendingEmailChangeResult } from './change-outputs.js';

/**
 * A change request is answered no sooner than this after it starts, whichever branch ran (the new
 * address free, or another account's): like a reset request, its timing tells nothing.
 */
export const CHANGE_EMAIL_MIN_MS = 100;

/** The id of the presented session if it is one of the account's (null otherwise). */
async function sessionIdOf(db: Database, token: string | null, userId: string): Promise<string | null> {
  if (!token) return null;
  const [row] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, hashToken(token)), eq(sessions.userId, userId)));
  return row?.id ?? null;
}

const invalidLink = () => fieldProblem('token', 'email_change_token_invalid', 'email_change_token_invalid');

/**
 * Moving an account to another address: asked for with the password, confirmed by a link mailed
 * to the new address, announced to the old one. Until the link is used nothing changes.
 */
export function emailChangeProcedures({
  publicProcedure,
  authedProcedure,
  authedLimitedProcedure,
  accountWriteProcedure,
}: Procedures) {
  return {
    emailChange: {
      /**
       * Asks to move the account to `new_email` (202). The answer is the same whether or not another
       * account of the realm has that address: a free one gets the confirmation link, a taken one a
       * mail that someone tried to move an account onto it. The old address is told either way.
       */
      request: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Ask to move the account to `new_email` (normalized as at registration), with `current_password` (counted by the lockout). A confirmation link goes to the NEW address (single use, 24 hours); the OLD address is told, with a link to stop the change. Nothing changes until the link is used. The answer is the same when another account of the realm has that address (that address is told someone tried to move an account onto it). The same address as now is `422 email_unchanged` on `new_email`.',
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(changeEmailSchema)
        .output(okResult)
        .mutation(async ({ ctx, input }) => {
          const started = performance.now();
          const { user } = ctx.auth;
          if (normalizeEmail(user.email) === input.new_email) throw fieldProblem('new_email', 'email_unchanged');
          ctx.hasher.assertCapacity();
          const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
          const taken = await findUserByEmail(ctx.db, ctx.realm.id, input.new_email);
          const done = await ctx.db.transaction(async (tx) => {
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id))) return false;
            await check.passed(tx, 'email_change_requested');
            if (taken) {
              // A change pending like the free branch's (`pending` shows it alike), whose link is
              // never sent: the taken address is told instead. Both mails go to the same address
              // under the same cap, so the change is pending exactly when the free branch's would be.
              if ((await queueEmailChangeAttempt(tx, ctx, taken)).queued)
                await issueToken(tx, {
                  realmId: ctx.realm.id,
                  userId: user.id,
                  purpose: 'change_email',
                  ttlMs: ctx.config.verifyTokenTtlMs,
                  newEmail: input.new_email,
                });
            } else {
              await queueEmailChange(tx, ctx, user, input.new_email);
            }
            await queueEmailChangeRequested(tx, ctx, user);
            return true;
          });
          if (!done) throw await incorrect();
          await sleep(Math.max(0, CHANGE_EMAIL_MIN_MS - (performance.now() - started)));
          return { ok: true as const };
        }),

      /** The change waiting for its link, if any (the newest live one). */
      pending: authedProcedure
        .meta({
          summary: 'The change of address waiting for its link, if any: `{ pending: { newEmail, expiresAt } | null }`.',
        })
        .output(pendingEmailChangeResult)
        .query(async ({ ctx }) => {
          const row = await newestOutstandingLink(ctx.db, ctx.auth.user.id, 'change_email');
          return { pending: row?.newEmail ? { newEmail: row.newEmail, expiresAt: row.expiresAt } : null };
        }),

      /** Stops a change asked for: its link no longer works. */
      cancel: accountWriteProcedure
        .meta({ summary: 'Stop a change of address asked for: its link no longer works.', problems: ['rate_limited'] })
        .output(okResult)
        .mutation(async ({ ctx }) => {
          const { user } = ctx.auth;
          await ctx.db.transaction(async (tx) => {
            await invalidateTokens(tx, user.id, 'change_email');
            await recordEvent(tx, eventSource(ctx), 'email_change_cancelled', user.id);
          });
          return { ok: true as const };
        }),

      /** What a link would do (the new address, the realm), without using it up. */
      link: publicProcedure
        .input(confirmEmailChangeSchema)
        .output(emailChangeLinkResult)
        .query(async ({ ctx, input }) => {
          const row = await peekTokenRow(ctx.db, input.token, ctx.realm.id, 'change_email');
          if (!row?.newEmail) throw invalidLink();
          return { newEmail: row.newEmail, realmName: ctx.realm.name };
        }),

      /**
       * Uses the link: the new address becomes the account's, confirmed, in one transaction the
       * realm's unique index guards (another account that took the address meanwhile: 409
       * `email_taken`, nothing changes). Every session ends but the caller's own when it is the
       * account's; links mailed to the old address die; the old address is told.
       */
      confirm: publicProcedure
        .meta({
          summary:
            "Use a change-of-address link's `token` (no session needed): the new address becomes the account's, confirmed; every other session ends; the old address is told. `409 email_taken` when another account of the realm took the address meanwhile (nothing changes); `400 email_change_token_invalid` for a link that does not work.",
          problems: ['email_change_token_invalid', 'email_taken'],
        })
        .input(confirmEmailChangeSchema)
        .output(emailChangedResult)
        .mutation(async ({ ctx, input }) => {
          const moved = await ctx.db
            .transaction(async (tx) => {
              const row = await consumeTokenRow(tx, input.token, ctx.realm.id, 'change_email');
              if (!row?.newEmail) return null;
              const [before] = await tx.select().from(users).where(eq(users.id, row.userId)).for('update');
              if (!before || before.disabledAt) return null;
              const [after] = await tx
                .update(users)
                .set({ email: row.newEmail, emailVerifiedAt: sql`now()` })
                .where(eq(users.id, row.userId))
                .returning();
              // The caller's own session stays when it is the account's; every other ends.
              await endSessions(tx, row.userId, await sessionIdOf(tx, ctx.sessionToken, row.userId));
              for (const purpose of ['reset_password', 'verify_email', 'change_email'] as const)
                await invalidateTokens(tx, row.userId, purpose);
              await recordEvent(tx, eventSource(ctx), 'email_changed', row.userId);
              await queueEmailChanged(tx, ctx, before, row.newEmail);
              return after!;
            })
            .catch((err: unknown) => {
              // The unique index decides a race with another account taking the address.
              if (isUniqueViolation(err)) throw fieldProblem('token', 'email_taken', 'email_taken');
              throw err;
            });
          if (!moved) throw invalidLink();
          return { ok: true as const, email: moved.email };
        }),
    },
  };
}
