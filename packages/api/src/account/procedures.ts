import { and, desc, eq, lt } from 'drizzle-orm';
import { accountEvents, mailOutbox, sessions, users } from '@accounts/db';
import {
  activitySchema,
  changeNameSchema,
  deleteAccountSchema,
  revokeOtherSessionsSchema,
  revokeSessionSchema,
} from '@accounts/validators';
import { describeDevice, displayAddress } from '../kernel/device.js';
import { fieldProblem, ProblemError } from '../kernel/errors.js';
import { detachEvents, eventSource, recordEvent } from '../records/events.js';
import { confirmOwner, verifyCurrentPassword } from '../credentials/current-password.js';
import { rowId } from '../kernel/ids.js';
import {
  accountDeletedResult,
  activityResult,
  nameChangedResult,
  revokeOtherSessionsResult,
  revokeSessionResult,
  sessionsResult,
} from './outputs.js';
import { endSessions, sessionIsLive } from '../records/sessions.js';
import { router, type Procedures } from '../procedures.js';
import { lockIfHashUnchanged, publicUser } from '../records/users.js';

/** Events per page of the activity list. */
export const ACTIVITY_PAGE_SIZE = 50;

/**
 * The cursor is the random public id of the last event shown (its 16 bytes as base64url), never
 * the internal id: that one comes from a sequence every account shares, and its gaps would tell
 * of other accounts' events.
 */
const encodeCursor = (publicId: string) => Buffer.from(publicId.replaceAll('-', ''), 'hex').toString('base64url');
function decodeCursor(cursor: string): string {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== 16 || bytes.toString('base64url') !== cursor) throw fieldProblem('cursor', 'cursor_invalid');
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The account's own security page: where it is signed in, what happened to it, its name, and
 * closing it. Every query is bounded by the signed-in account: another account's session ids and
 * events are never found, and are answered as unknown ones.
 */
export function createSecurityRouter({ authedProcedure, authedLimitedProcedure, accountWriteProcedure }: Procedures) {
  return router({
    /** The account's live sessions, the caller's own first, then by last use. */
    sessions: authedProcedure.output(sessionsResult).query(async ({ ctx }) => {
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
        device: describeDevice(r.userAgent),
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

    /** The account's events, newest first, a page at a time. */
    activity: authedProcedure
      .input(activitySchema)
      .output(activityResult)
      .query(async ({ ctx, input }) => {
        const mine = eq(accountEvents.userId, ctx.auth.user.id);
        // The cursor names one of the caller's own events; any other is unknown. Order stays by insertion.
        let before: number | null = null;
        if (input.cursor) {
          const [at] = await ctx.db
            .select({ id: accountEvents.id })
            .from(accountEvents)
            .where(and(mine, eq(accountEvents.publicId, decodeCursor(input.cursor))));
          if (!at) throw fieldProblem('cursor', 'cursor_invalid');
          before = at.id;
        }
        const rows = await ctx.db
          .select({
            id: accountEvents.id,
            publicId: accountEvents.publicId,
            type: accountEvents.type,
            at: accountEvents.createdAt,
            userAgent: accountEvents.userAgent,
            clientIp: accountEvents.clientIp,
          })
          .from(accountEvents)
          .where(
            and(
              mine,
              // A password check still being hashed is not an event yet.
              eq(accountEvents.pending, false),
              before === null ? undefined : lt(accountEvents.id, before),
            ),
          )
          .orderBy(desc(accountEvents.id))
          .limit(ACTIVITY_PAGE_SIZE + 1);
        const page = rows.slice(0, ACTIVITY_PAGE_SIZE);
        return {
          events: page.map((r) => ({
            id: r.publicId,
            at: r.at,
            type: r.type,
            device: describeDevice(r.userAgent),
            address: displayAddress(r.clientIp),
            // Blocked attempts (the lockout's refusals) and other refusals are failed attempts too.
            failed: /_(failed|blocked|refused|invalid)$|^rate_limited$/.test(r.type),
          })),
          nextCursor: rows.length > ACTIVITY_PAGE_SIZE ? encodeCursor(page.at(-1)!.publicId) : null,
        };
      }),

    /** The display name, under the registration rules. */
    changeName: accountWriteProcedure
      .input(changeNameSchema)
      .output(nameChangedResult)
      .mutation(async ({ ctx, input }) => {
        const { user } = ctx.auth;
        const updated = await ctx.db.transaction(async (tx) => {
          const [row] = await tx.update(users).set({ name: input.name }).where(eq(users.id, user.id)).returning();
          await recordEvent(tx, eventSource(ctx), 'name_changed', user.id);
          return row!;
        });
        return { user: publicUser(updated, ctx.realm) };
      }),

    /**
     * Closes the account after a password check under the same limits as a password change.
     * The account, its sessions, known devices and mail go; its security events stay for the
     * retention window (whoever took an account over cannot erase their traces by deleting it),
     * detached from it and found only by a keyed digest of its email (events.ts). The email may
     * then be registered again.
     */
    deleteAccount: authedLimitedProcedure('changePassword')
      .input(deleteAccountSchema)
      .output(accountDeletedResult)
      .mutation(async ({ ctx, input }) => {
        const { user } = ctx.auth;
        ctx.hasher.assertCapacity();
        const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
        const deleted = await ctx.db.transaction(async (tx) => {
          // A password change that committed first makes the verified password stale.
          if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash, ctx.auth.session.id))) return false;
          await check.passed(tx, 'account_deleted');
          await detachEvents(tx, ctx.vault, user);
          await tx.delete(mailOutbox).where(eq(mailOutbox.userId, user.id));
          // Sessions, known devices and mail tokens go with the row.
          await tx.delete(users).where(eq(users.id, user.id));
          return true;
        });
        if (!deleted) throw await incorrect();
        ctx.cookies.clear();
        return { ok: true as const };
      }),
  });
}
