import { and, desc, eq, gt, lt, ne, sql } from 'drizzle-orm';
import { accountEvents, mailOutbox, sessions, users } from '@accounts/db';
import { activitySchema, changeNameSchema, deleteAccountSchema, revokeSessionSchema } from '@accounts/validators';
import type { AccountConfig } from '../config.js';
import { describeDevice, displayAddress } from '../device.js';
import { fieldProblem, ProblemError } from '../errors.js';
import { recordEvent } from '../events.js';
import { verifyCurrentPassword } from '../current-password.js';
import {
  accountDeletedResult,
  activityResult,
  nameChangedResult,
  revokeOtherSessionsResult,
  revokeSessionResult,
  sessionsResult,
} from '../security-outputs.js';
import { millis, revokeOtherSessions } from '../sessions.js';
import { proceduresFor, router, type Context } from '../trpc.js';
import { lockIfHashUnchanged, publicUser } from '../users.js';

/** Events per page of the activity list. */
export const ACTIVITY_PAGE_SIZE = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const source = (ctx: Context) => ({ realmId: ctx.realm.id, clientIp: ctx.clientIp, userAgent: ctx.userAgent });

/** The cursor is the id of the last event shown, opaque to clients. */
const encodeCursor = (id: number) => Buffer.from(`e${id}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const m = /^e([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const id = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(id)) throw fieldProblem('cursor', 'cursor_invalid');
  return id;
}

/**
 * The account's own security page: where it is signed in, what happened to it, its name, and
 * closing it. Every query is bounded by the signed-in account: another account's session ids and
 * events are never found, and are answered as unknown ones.
 */
export function createSecurityRouter(config: AccountConfig) {
  const { authedProcedure, authedLimitedProcedure } = proceduresFor(config);
  return router({
    /** The account's live sessions, the caller's own first, then by last use. */
    sessions: authedProcedure.output(sessionsResult).query(async ({ ctx }) => {
      const { user, session: current } = ctx.auth;
      const rows = await ctx.db
        .select({ id: sessions.id, userAgent: sessions.userAgent, clientIp: sessions.clientIp, createdAt: sessions.createdAt, lastSeenAt: sessions.lastSeenAt })
        .from(sessions)
        .where(
          and(
            eq(sessions.userId, user.id),
            gt(sessions.expiresAt, sql`now()`),
            gt(sessions.lastSeenAt, sql`now() - ${millis(ctx.config.sessionIdleMs)}`),
          ),
        )
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

    /** Ends one of the account's sessions; ending the caller's own is a sign-out. */
    revokeSession: authedProcedure.input(revokeSessionSchema).output(revokeSessionResult).mutation(async ({ ctx, input }) => {
      const { user, session: current } = ctx.auth;
      const id = input.session_id.trim().toLowerCase();
      // Malformed, unknown and another account's ids get one answer.
      if (!UUID.test(id)) throw new ProblemError('not_found');
      const gone = await ctx.db.transaction(async (tx) => {
        const [row] = await tx.delete(sessions).where(and(eq(sessions.id, id), eq(sessions.userId, user.id))).returning({ id: sessions.id });
        if (row) await recordEvent(tx, source(ctx), 'session_revoked', user.id);
        return row;
      });
      if (!gone) throw new ProblemError('not_found');
      const signedOut = gone.id === current.id;
      if (signedOut) ctx.session.clear();
      return { ok: true as const, signedOut };
    }),

    /** Ends every session of the account but the caller's. */
    revokeOtherSessions: authedProcedure.output(revokeOtherSessionsResult).mutation(async ({ ctx }) => {
      const { user, session } = ctx.auth;
      const revoked = await ctx.db.transaction(async (tx) => {
        const n = await revokeOtherSessions(tx, user.id, session.id);
        await recordEvent(tx, source(ctx), 'sessions_revoked', user.id);
        return n;
      });
      return { ok: true as const, revoked };
    }),

    /** The account's events, newest first, a page at a time. */
    activity: authedProcedure.input(activitySchema).output(activityResult).query(async ({ ctx, input }) => {
      const before = input.cursor ? decodeCursor(input.cursor) : null;
      const rows = await ctx.db
        .select({ id: accountEvents.id, type: accountEvents.type, at: accountEvents.createdAt, userAgent: accountEvents.userAgent, clientIp: accountEvents.clientIp })
        .from(accountEvents)
        .where(
          and(
            eq(accountEvents.userId, ctx.auth.user.id),
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
          id: String(r.id),
          at: r.at,
          type: r.type,
          device: describeDevice(r.userAgent),
          address: displayAddress(r.clientIp),
          failed: r.type.endsWith('_failed'),
        })),
        nextCursor: rows.length > ACTIVITY_PAGE_SIZE ? encodeCursor(page.at(-1)!.id) : null,
      };
    }),

    /** The display name, under the registration rules. */
    changeName: authedProcedure.input(changeNameSchema).output(nameChangedResult).mutation(async ({ ctx, input }) => {
      const { user } = ctx.auth;
      const updated = await ctx.db.transaction(async (tx) => {
        const [row] = await tx.update(users).set({ name: input.name }).where(eq(users.id, user.id)).returning();
        await recordEvent(tx, source(ctx), 'name_changed', user.id);
        return row!;
      });
      return { user: publicUser(updated, ctx.realm) };
    }),

    /**
     * Closes the account after a password check under the same limits as a password change.
     * The account, its sessions, known devices, mail and its events go; one 'account_deleted'
     * event stays, with no user, address or device. The email may then be registered again.
     */
    deleteAccount: authedLimitedProcedure('changePassword').input(deleteAccountSchema).output(accountDeletedResult).mutation(async ({ ctx, input }) => {
      const { user, session } = ctx.auth;
      ctx.hasher.assertCapacity();
      const { check, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, input.current_password);
      const deleted = await ctx.db.transaction(async (tx) => {
        // A password change that committed first makes the verified password stale.
        if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash))) return false;
        await check.passed(tx, 'account_deleted');
        const mine = eq(accountEvents.userId, user.id);
        await tx.delete(accountEvents).where(and(mine, ne(accountEvents.type, 'account_deleted')));
        await tx
          .update(accountEvents)
          .set({ userId: null, lockoutKey: null, clientKey: null, clientIp: null, userAgent: null })
          .where(and(mine, eq(accountEvents.type, 'account_deleted')));
        await tx.delete(mailOutbox).where(eq(mailOutbox.userId, user.id));
        // Sessions, known devices and mail tokens go with the row.
        await tx.delete(users).where(eq(users.id, user.id));
        return true;
      });
      if (!deleted) throw await incorrect();
      ctx.session.clear();
      return { ok: true as const };
    }),
  });
}
