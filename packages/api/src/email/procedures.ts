import { and, eq, isNull, sql } from 'drizzle-orm';
import { users, type Database, type User } from '@accounts/db';
import { checkLinkSchema, verifyEmailSchema } from '@accounts/validators/account-links';
import { fieldProblem, rateLimited } from '../kernel/errors.js';
import { queueVerification } from '../mail/notices.js';
import type { Procedures } from '../procedures.js';
import { eventSource, recordEvent } from '../records/events.js';
import { consumeToken, linkState, peekToken } from '../records/tokens.js';
import { linkStateResult, resendResult, verificationLinkResult, verifiedResult } from './outputs.js';

async function userById(db: Database, id: string): Promise<User | null> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user ?? null;
}

/**
 * The procedures behind mailed links: asking for a password reset, resetting with the link's
 * token, confirming the address, and asking for a new confirmation link.
 */
export function emailProcedures({ publicProcedure, limitedProcedure, authedLimitedProcedure }: Procedures) {
  return {
    email: {
      /**
       * Where a mailed link stands, before the person does anything with it: the page behind the
       * link asks when it opens, so a used or expired link says so at once, with the form for a
       * new one filled in. Read only: nothing is used up and nothing is recorded, however often it
       * is asked. Counted per client address in a bucket of its own ('linkCheck').
       */
      checkLink: limitedProcedure('linkCheck')
        .meta({
          summary:
            "Where a mailed link's `token` stands, without using it up: `usable`, `used` (used, or replaced by a newer link), `expired` (past its time, or older than the account's last credentials change) or `unknown`. For a used or expired `reset_password` or `verify_email` link, `email` is the account's address (where the link was mailed), for the form that asks for a new one.",
          problems: ['rate_limited'],
        })
        .input(checkLinkSchema)
        .output(linkStateResult)
        .query(async ({ ctx, input }) => {
          const link = await linkState(ctx.db, input.token, ctx.realm.id, input.purpose);
          if (link.state === 'unknown') return { state: 'unknown' as const };
          const user = await userById(ctx.db, link.userId);
          if (!user || user.disabledAt) return { state: 'unknown' as const };
          if (link.state === 'usable' || input.purpose === 'change_email') return { state: link.state };
          return { state: link.state, email: user.email };
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
        .meta({
          summary:
            "Confirm the account's email address with a verification link's token. Opening the link confirms nothing: its page shows the address and posts this when the person asks.",
          problems: ['verify_token_invalid'],
        })
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
        .meta({
          summary:
            "Mail the signed-in account a new verification link (nothing is sent once the address is confirmed); `429 rate_limited` with `Retry-After` when the address's mail cap is reached.",
          problems: ['rate_limited'],
        })
        .output(resendResult)
        .mutation(async ({ ctx }) => {
          const { user } = ctx.auth;
          if (user.emailVerifiedAt) return { ok: true as const, alreadyVerified: true };
          const sent = await ctx.db.transaction((tx) => queueVerification(tx, ctx, user));
          // Over the address's mail cap: 429, with when the window leaves room again.
          if (!sent.queued) throw rateLimited(sent.retryAfter);
          return { ok: true as const, alreadyVerified: false };
        }),
    },
  };
}
