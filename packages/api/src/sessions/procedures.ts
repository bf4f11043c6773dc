import { and, desc, eq } from 'drizzle-orm';
import { sessions } from '@accounts/db';
import { revokeOtherSessionsSchema, revokeSessionSchema } from '@accounts/validators';
import { confirmOwner } from '../credentials/current-password.js';
import { describeDevice, displayAddress } from '../kernel/device.js';
import { ProblemError } from '../kernel/errors.js';
import { rowId } from '../kernel/ids.js';
import { okResult } from '../kernel/outputs.js';
import type { Procedures } from '../procedures.js';
import { eventSource, recordEvent } from '../records/events.js';
import { deleteSessionByToken, endSessions, sessionIsLive } from '../records/sessions.js';
import { revokeOtherSessionsResult, revokeSessionResult, sessionsResult } from './outputs.js';

/**
 * Where the account is signed in, and ending it: signing out (wire namespace `account`), the list
 * of live sessions and ending them (namespace `security`). Every query is bounded by the signed-in
 * account: another account's session ids are never found, and are answered as unknown ones.
 */
export function sessionProcedures({ publicProcedure, authedProcedure, accountWriteProcedure }: Procedures) {
  return {
    account: {
      signOut: publicProcedure
        .meta({ summary: 'Sign out: the session ends and its cookie is cleared.' })
        .output(okResult)
        .mutation(async ({ ctx }) => {
          const userId = await deleteSessionByToken(ctx.db, ctx.sessionToken, ctx.realm.id);
          if (userId) await recordEvent(ctx.db, eventSource(ctx), 'signed_out', userId);
          ctx.cookies.clear();
          return { ok: true as const };
        }),
    },

    security: {
      /** The account's live sessions, the caller's own first, then by last use. */
      sessions: authedProcedure
        .meta({
          summary:
            "The account's live sessions: device (in the request's language: \"Firefox 133 sous Windows 10\"), shortened address, created and last used; `current` marks the caller's own.",
        })
        .output(sessionsResult)
        .query(async ({ ctx }) => {
          const { user, session: current } = ctx.auth;
          const rows = await ctx.db
            .select({
              id: sessions.id,
              userAgent: sessions.userAgent,
              clientIp: sessions.clientIp,
              createdAt: sessions.createdAt,
              lastSeenAt: sessions.lastSeenAt,
            })
            .from(sessions)
            .where(and(eq(sessions.userId, user.id), sessionIsLive(ctx.config.sessionIdleMs)))
            .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt));
          const list = rows.map((r) => ({
            id: r.id,
            current: r.id === current.id,
            device: describeDevice(r.userAgent, { locale: ctx.locale }),
            address: displayAddress(r.clientIp),
            createdAt: r.createdAt,
            lastUsedAt: r.lastSeenAt,
          }));
          return { sessions: [...list.filter((s) => s.current), ...list.filter((s) => !s.current)] };
        }),

      /**
       * Ends one of the account's sessions. Ending the caller's own is a sign-out; ending another
       * needs the owner confirmed first (the current password).
       */
      revokeSession: accountWriteProcedure
        .meta({
          summary:
            "End one of the account's sessions (`session_id` from GET /users/sessions). Ending another session needs `current_password` (checked under the limits of a password change); ending the caller's own signs it out and needs none. An id that is not one of the account's sessions, malformed or another account's, is 404. Counted against the account's and the address's limit on writes.",
          problems: ['not_found', 'rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(revokeSessionSchema)
        .output(revokeSessionResult)
        .mutation(async ({ ctx, input }) => {
          const { user, session: current } = ctx.auth;
          const id = rowId(input.session_id);
          // Malformed, unknown and another account's ids get one answer.
          if (!id) throw new ProblemError('not_found');
          const mine = and(eq(sessions.id, id), eq(sessions.userId, user.id));
          if (id === current.id) {
            await ctx.db.transaction(async (tx) => {
              await tx.delete(sessions).where(mine);
              await recordEvent(tx, eventSource(ctx), 'session_revoked', user.id);
            });
            ctx.cookies.clear();
            return { ok: true as const, signedOut: true };
          }
          const [found] = await ctx.db.select({ id: sessions.id }).from(sessions).where(mine);
          if (!found) throw new ProblemError('not_found');
          const { check } = await confirmOwner(ctx, ctx.auth, input);
          const gone = await ctx.db.transaction(async (tx) => {
            const [row] = await tx.delete(sessions).where(mine).returning({ id: sessions.id });
            if (row) await check.passed(tx, 'session_revoked');
            return row;
          });
          if (!gone) {
            // It ended meanwhile (expired, signed out): the right password is no failure.
            await check.withdraw();
            throw new ProblemError('not_found');
          }
          return { ok: true as const, signedOut: false };
        }),

      /** Ends every session of the account but the caller's, once the owner is confirmed. */
      revokeOtherSessions: accountWriteProcedure
        .meta({
          summary:
            "End every session of the account except the caller's, after checking `current_password` (the limits of a password change apply). Counted against the account's and the address's limit on writes.",
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(revokeOtherSessionsSchema)
        .output(revokeOtherSessionsResult)
        .mutation(async ({ ctx, input }) => {
          const { user, session } = ctx.auth;
          const { check } = await confirmOwner(ctx, ctx.auth, input);
          const revoked = await ctx.db.transaction(async (tx) => {
            const n = await endSessions(tx, user.id, session.id);
            await check.passed(tx, 'sessions_revoked');
            return n;
          });
          return { ok: true as const, revoked };
        }),
    },
  };
}
