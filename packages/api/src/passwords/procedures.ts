import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { users, type Database, type User } from '@accounts/db';
import { changePasswordSchema } from '@accounts/validators';
import { forgotPasswordSchema, resetPasswordSchema } from '@accounts/validators/account-links';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { checkNewPassword } from '../credentials/new-password.js';
import type { AccountConfig } from '../kernel/config.js';
import { fieldProblem } from '../kernel/errors.js';
import { queueReset } from '../mail/notices.js';
import { takeMailPlace, type Enqueued } from '../mail/outbox.js';
import type { Procedures } from '../procedures.js';
import { eventSource, recordEvent } from '../records/events.js';
import { deleteSessionByToken, rotateSession } from '../records/sessions.js';
import { consumeToken, dummyTokenWork, invalidateTokens, peekToken } from '../records/tokens.js';
import { findUserByEmail, NO_USER, rememberLocale, setPasswordHash } from '../records/users.js';
import { acceptedResult, passwordChangedResult, resetResult } from './outputs.js';
import { endWhatTheOldPasswordOpened } from './replace.js';

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
 * A new password: changed by the signed-in owner (wire namespace `account`), or set with a mailed
 * reset link after asking for one (namespace `email`). The input schemas leave out how easy the
 * new password is to guess (estimator null): the resolver estimates it once, in full, knowing the
 * account.
 */
export function passwordProcedures({ limitedProcedure, authedLimitedProcedure }: Procedures, config: AccountConfig) {
  const policy = config.passwordPolicy;
  return {
    account: {
      changePassword: authedLimitedProcedure('passwordCheck')
        .meta({
          summary: "Change the signed-in user's password; other sessions end, this one gets a new token.",
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(changePasswordSchema({ policy, estimator: null }))
        .output(passwordChangedResult)
        .mutation(async ({ ctx, input: data }) => {
          const { user, session } = ctx.auth;
          ctx.hasher.assertCapacity(2);
          await checkNewPassword(ctx, data.new_password, user, 'new_password');
          const { check, knownDevice, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, data.current_password);
          const nextHash = await check.during(() => ctx.hasher.hash(data.new_password));
          const outcome = await ctx.db.transaction(async (tx) => {
            if (!(await setPasswordHash(tx, user.id, nextHash, { expected: user.passwordHash }))) return null;
            await check.passed(tx, 'password_changed');
            const kept = { sessionId: session.id, knownDevice };
            const revoked = await endWhatTheOldPasswordOpened(tx, ctx, user, 'changed', kept);
            const rotated = await rotateSession(tx, session);
            await rememberLocale(tx, user, ctx.locale);
            return { revoked, rotated };
          });
          // Another change from the same current password won the race: this one's password is now wrong.
          if (!outcome) throw await incorrect();
          ctx.cookies.issue(outcome.rotated);
          return {
            ok: true as const,
            otherSessionsRevoked: outcome.revoked,
            ...(ctx.cookies.tokensInBody ? { session: outcome.rotated } : {}),
          };
        }),
    },

    email: {
      /**
       * Queues a reset link for an account of this realm with that address. The answer is the same
       * whether or not the account exists: an unknown address takes a place under the address's
       * cap of requested links and like steps (a token, its digest, a database round trip), so both
       * are held back alike (`retryAfter`, when the address had its share), and both answer after
       * FORGOT_PASSWORD_MIN_MS, so neither body nor timing tells them apart.
       */
      forgotPassword: limitedProcedure('forgotPassword')
        .meta({
          summary:
            'Ask for a password-reset link by mail. The answer is the same whether or not an account has that address: an address that had its share of links in the window (`RATE_LIMIT_MAIL_PER_EMAIL`, counted alike for addresses no account has) gets nothing sent, and `retryAfter` says in how many seconds it may ask again.',
          problems: ['rate_limited'],
        })
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
      resetPassword: limitedProcedure('passwordCheck')
        .meta({
          summary:
            "Set a new password with a reset link's token: every session and every known device of the account ends, and nobody is signed in (the caller's session cookie is cleared); sign in with the new password.",
          problems: ['reset_token_invalid', 'rate_limited', 'server_busy'],
        })
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
          const revoked = await ctx.db.transaction(async (tx) => {
            // Used up in one statement: of two resets with one link, one wins.
            if ((await consumeToken(tx, input.token, ctx.realm.id, 'reset_password')) !== user.id) return null;
            // Following a link sent to the address also proves the address is the owner's.
            const updated = await setPasswordHash(tx, user.id, passwordHash, { addressProven: true });
            await recordEvent(tx, eventSource(ctx), 'password_reset', user.id);
            const ended = await endWhatTheOldPasswordOpened(tx, ctx, updated!, 'reset');
            // The client's own session ends too, whoever's it was: a reset leaves it signed out.
            await deleteSessionByToken(tx, ctx.sessionToken, ctx.realm.id);
            return ended;
          });
          if (revoked === null) throw invalid();
          if (ctx.sessionToken) ctx.cookies.clear();
          return { ok: true as const, sessionsRevoked: revoked, email: user.email };
        }),
    },
  };
}
