import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { users, type Database, type User } from '@accounts/db';
import { forgotPasswordSchema, resetPasswordSchema, verifyEmailSchema } from '@accounts/validators/account-links';
import type { AccountConfig } from '../kernel/config.js';
import { fieldProblem, rateLimited } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import { endKnownDevices } from '../credentials/known-devices.js';
import { queuePasswordNotice, queueReset, queueVerification } from '../mail/notices.js';
import { takeMailPlace, type Enqueued } from '../mail/outbox.js';
import { checkNewPassword } from '../credentials/new-password.js';
import { deleteSessionByToken, endSessions } from '../records/sessions.js';
import { consumeToken, dummyTokenWork, invalidateTokens, peekToken } from '../records/tokens.js';
import { router, type Procedures } from '../procedures.js';
import { findUserByEmail, NO_USER, setPasswordHash } from '../records/users.js';
import { acceptedResult, resendResult, resetResult, verificationLinkResult, verifiedResult } from './outputs.js';

/**
 * A reset request is answered no sooner than this after its procedure starts. An account's branch
 * writes a token, a mail and an event where an unknown address's only reads: 2.3 ms apart on a
 * quiet machine (the benchmark's enumeration probe), far inside this, so the answer's time says
 * nothing of which branch ran. Asking for a reset is rare and a person waits for a mail anyway.
 */
export const FORGOT_PASSWORD_MIN_MS = 100;

async function userById(db: Database, id: string): Promise<User | null> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user ?? null;
}

/**
 * The procedures behind mailed links: asking for a password reset, resetting with the link's
 * token, confirming the address, and asking for a new confirmation link.
 */
export function createEmailRouter(
  { publicProcedure, limitedProcedure, authedLimitedProcedure }: Procedures,
  config: AccountConfig,
) {
  const policy = config.passwordPolicy;
  return router({
    /**
     * Queues a reset link for an account of this realm with that address. The answer is the same
     * whether or not the account exists: an unknown address takes a place under the address's
     * cap of requested links and like steps (a token, its digest, a database round trip), so both
     * are held back alike (`retryAfter`, when the address had its share), and both answer after
     * FORGOT_PASSWORD_MIN_MS, so neither body nor timing tells them apart.
     */
    forgotPassword: limitedProcedure('forgotPassword')
      .input(forgotPasswordSchema)
      .output(acceptedResult)
      .mutation(async ({ ctx, input }) => {
        const started = performance.now();
        const found = await findUserByEmail(ctx.db, ctx.realm.id, input.email);
        const user = found && !found.disabledAt ? found : null;
        const sent = await ctx.db.transaction(async (tx): Promise<Enqueued> => {
          if (user) {
            // Over the cap nothing is queued and older links keep working.
            const queued = await queueReset(tx, ctx, user);
            if (queued.queued) await recordEvent(tx, eventSource(ctx), 'password_reset_requested', user.id);
            return queued;
          }
          const place = await takeMailPlace(tx, ctx.config.mailCap, input.email, 'requested');
          if (place.queued) {
            await dummyTokenWork(tx);
            await invalidateTokens(tx, NO_USER, 'reset_password');
          }
          return place;
        });
        await sleep(Math.max(0, FORGOT_PASSWORD_MIN_MS - (performance.now() - started)));
        return sent.queued ? { ok: true as const } : { ok: true as const, retryAfter: sent.retryAfter };
      }),

    /**
     * Sets a new password with a reset link's token: the same rules as registration, every
     * session and every known device of the account ends, reset tokens die, and nobody is signed
     * in: the person signs in with the new password (OWASP's forgot-password guidance), as a new
     * device. Any token that does not work (unknown, used, expired, replaced, older than the
     * password) is one error.
     */
    resetPassword: limitedProcedure('changePassword')
      .input(resetPasswordSchema({ policy, estimator: null }))
      .output(resetResult)
      .mutation(async ({ ctx, input }) => {
        const invalid = () => fieldProblem('token', 'reset_token_invalid', 'reset_token_invalid');
        const userId = await peekToken(ctx.db, input.token, ctx.realm.id, 'reset_password');
        const user = userId ? await userById(ctx.db, userId) : null;
        if (!user || user.disabledAt) throw invalid();
        ctx.hasher.assertCapacity();
        await checkNewPassword(ctx, input.new_password, user, 'new_password');
        const passwordHash = await ctx.hasher.hash(input.new_password);
        const done = await ctx.db.transaction(async (tx) => {
          // Used up in one statement: of two resets with one link, one wins.
          if ((await consumeToken(tx, input.token, ctx.realm.id, 'reset_password')) !== user.id) return null;
          // Following a link sent to the address also proves the address is the owner's.
          const updated = await setPasswordHash(tx, user.id, passwordHash, { addressProven: true });
          await invalidateTokens(tx, user.id, 'reset_password');
          const revoked = await endSessions(tx, user.id);
          // A browser that signed in with the old password is no longer trusted as the owner's.
          await endKnownDevices(tx, user.id);
          // The client's own session ends too, whoever's it was: a reset leaves it signed out.
          await deleteSessionByToken(tx, ctx.sessionToken, ctx.realm.id);
          await recordEvent(tx, eventSource(ctx), 'password_reset', user.id);
          if (revoked > 0) await recordEvent(tx, eventSource(ctx), 'sessions_revoked', user.id);
          await queuePasswordNotice(tx, ctx, updated!, 'reset');
          return revoked;
        });
        if (done === null) throw invalid();
        if (ctx.sessionToken) ctx.cookies.clear();
        return { ok: true as const, sessionsRevoked: done };
      }),

    /**
     * What a verification link would confirm (the address and the realm), without using it up:
     * the page behind the link shows it and confirms only when the person asks (a mail scanner
     * or a previewer that opens the link confirms nothing).
     */
    verificationLink: publicProcedure
      .input(verifyEmailSchema)
      .output(verificationLinkResult)
      .query(async ({ ctx, input }) => {
        const userId = await peekToken(ctx.db, input.token, ctx.realm.id, 'verify_email');
        const user = userId ? await userById(ctx.db, userId) : null;
        if (!user) throw fieldProblem('token', 'verify_token_invalid', 'verify_token_invalid');
        return { email: user.email, realmName: ctx.realm.name };
      }),

    /**
     * Confirms the address with a verification link's token (no session needed: the link may open
     * anywhere). Only this mutation uses the token: opening the link never does.
     */
    verifyEmail: publicProcedure
      .input(verifyEmailSchema)
      .output(verifiedResult)
      .mutation(async ({ ctx, input }) => {
        const ok = await ctx.db.transaction(async (tx) => {
          const userId = await consumeToken(tx, input.token, ctx.realm.id, 'verify_email');
          if (!userId) return false;
          await tx
            .update(users)
            .set({ emailVerifiedAt: sql`now()` })
            .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
          await recordEvent(tx, eventSource(ctx), 'email_verified', userId);
          return true;
        });
        if (!ok) throw fieldProblem('token', 'verify_token_invalid', 'verify_token_invalid');
        return { ok: true as const, emailVerified: true as const };
      }),

    /** Sends the signed-in account a new verification link (limited per client address, and by the mail cap of its email). */
    resendVerification: authedLimitedProcedure('resendVerification')
      .output(resendResult)
      .mutation(async ({ ctx }) => {
        const { user } = ctx.auth;
        if (user.emailVerifiedAt) return { ok: true as const, alreadyVerified: true };
        const sent = await ctx.db.transaction((tx) => queueVerification(tx, ctx, user));
        // Over the address's mail cap: 429, with when the window leaves room again.
        if (!sent.queued) throw rateLimited(sent.retryAfter);
        return { ok: true as const, alreadyVerified: false };
      }),
  });
}
