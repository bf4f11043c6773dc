import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { accountEvents, mailOutbox, users } from '@accounts/db';
import { activitySchema, changeNameSchema, deleteAccountSchema, PASSWORD_MAX_LENGTH } from '@accounts/validators';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { twoStepStatus } from '../credentials/factors.js';
import { describeDevice, displayAddress } from '../kernel/device.js';
import { fieldProblem } from '../kernel/errors.js';
import type { Procedures } from '../procedures.js';
import { detachEvents, eventSource, recordEvent } from '../records/events.js';
import { DEFAULT_REALM_SLUG } from '../records/realms.js';
import { hasPassword, lockIfHashUnchanged, publicUser } from '../records/users.js';
import {
  accountDeletedResult,
  activityResult,
  meResult,
  nameChangedResult,
  settingsResult,
  suggestionDismissedResult,
} from './outputs.js';

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
 * The account itself: what the pages need before any call, the signed-in account (wire namespace
 * `account`), its activity, its name and closing it (namespace `security`). Every query is
 * bounded by the signed-in account: another account's events are never found.
 */
export function accountProcedures({
  publicProcedure,
  authedProcedure,
  authedLimitedProcedure,
  accountWriteProcedure,
}: Procedures) {
  return {
    account: {
      /** What the pages need before any call: the realm and the password policy. */
      settings: publicProcedure.output(settingsResult).query(({ ctx }) => ({
        productName: ctx.config.productName,
        realm: {
          slug: ctx.realm.slug,
          name: ctx.realm.name,
          isDefault: ctx.realm.slug === DEFAULT_REALM_SLUG,
          named: ctx.realm.named,
        },
        passwordPolicy: { minLength: ctx.config.passwordPolicy.minLength, maxLength: PASSWORD_MAX_LENGTH },
      })),

      /** The signed-in account, its two-step sign-in (no query unless it is on) and what the account page says of its sign-in. */
      me: authedProcedure
        .meta({
          summary:
            'The signed-in user; its two-step sign-in (`twoStep.enabled`, `methods`, `recoveryCodesLeft`); and `security`: when the password was last set (`passwordChangedAt`, null for an account without one) and whether the account page suggests a passkey or two-step sign-in (`suggestSecondFactor`: the account has neither, and the suggestion was not dismissed).',
        })
        .output(meResult)
        .query(async ({ ctx }) => {
          const { user } = ctx.auth;
          const twoStep = await twoStepStatus(ctx.db, user);
          const hasFactor = twoStep.methods.some((m) => m === 'passkey' || m === 'totp');
          return {
            user: publicUser(user, ctx.realm),
            twoStep,
            security: {
              passwordChangedAt: hasPassword(user) ? user.passwordChangedAt : null,
              suggestSecondFactor: !hasFactor && user.secondFactorSuggestionDismissedAt === null,
            },
          };
        }),

      /**
       * The account page stops suggesting a passkey or two-step sign-in, for good and on every
       * device: kept with the account, so it holds without scripts and in every browser.
       */
      dismissSecondFactorSuggestion: accountWriteProcedure
        .meta({
          summary:
            "Stop suggesting a passkey or two-step sign-in on the account page, on every device (`security.suggestSecondFactor` of `GET /users/me` is false from then on); dismissing it again changes nothing. Counted against the account's and the address's limit on writes.",
          problems: ['rate_limited'],
        })
        .output(suggestionDismissedResult)
        .mutation(async ({ ctx }) => {
          // Written once: the first dismissal's time stays, and a repeat leaves the row (and the
          // sessions' remembered checks, which every change of it drops) alone.
          await ctx.db
            .update(users)
            .set({ secondFactorSuggestionDismissedAt: sql`now()` })
            .where(and(eq(users.id, ctx.auth.user.id), isNull(users.secondFactorSuggestionDismissedAt)));
          return { ok: true as const };
        }),
    },

    security: {
      /** The account's events, newest first, a page at a time. */
      activity: authedProcedure
        .meta({
          summary:
            'The account\'s events, newest first, 50 a page; pass `nextCursor` as `?cursor=` for the next page. `device` is said in the request\'s language (`Accept-Language`: "Firefox 133 unter Windows 10"); a sign-in from a device the account did not know then has `newDevice: true`.',
        })
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
              clientKey: accountEvents.clientKey,
              app: accountEvents.appName,
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
              device: describeDevice(r.userAgent, { locale: ctx.locale }),
              address: displayAddress(r.clientIp),
              // Blocked attempts (the lockout's refusals) and other refusals are failed attempts too.
              failed: /_(failed|blocked|refused|invalid)$|^rate_limited$/.test(r.type),
              app: r.app,
              // A sign-in's claim ran on the client's known device (`d:`), else on its address: the
              // device was new to the account then, and its owner was mailed (sign-in/flow.ts).
              ...(r.type === 'signed_in' && !r.clientKey?.startsWith('d:') && { newDevice: true as const }),
            })),
            nextCursor: rows.length > ACTIVITY_PAGE_SIZE ? encodeCursor(page.at(-1)!.publicId) : null,
          };
        }),

      /** The display name, under the registration rules. */
      changeName: accountWriteProcedure
        .meta({
          summary:
            "Change the account's display name (the registration rules apply). Counted against the account's and the address's limit on writes.",
          problems: ['rate_limited'],
        })
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
      deleteAccount: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Delete the account after checking its password (the limits of a password change apply): its sessions end, and the email may be registered again.',
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
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
    },
  };
}
