import {
  changePasswordSchema,
  PASSWORD_MAX_LENGTH,
  registerSchema,
  secondStepSchema,
  signInSchema,
} from '@accounts/validators';
import { isUniqueViolation, users } from '@accounts/db';
import { addressClient, claimPasswordCheck, deviceClient, lockoutSubject } from '../credentials/lockout.js';
import type { AccountConfig } from '../kernel/config.js';
import { verifyCurrentPassword } from '../credentials/current-password.js';
import { fieldProblem, ProblemError } from '../kernel/errors.js';
import { eventSource, recordEvent } from '../records/events.js';
import { endKnownDevices, parseDeviceCredential } from '../credentials/known-devices.js';
import { queuePasswordNotice, queueVerification } from '../mail/notices.js';
import { checkNewPassword } from '../credentials/new-password.js';
import { okResult } from '../kernel/outputs.js';
import { realmRequiresVerifiedEmail } from '../records/realm-settings.js';
import { DEFAULT_REALM_SLUG } from '../records/realms.js';
import { deleteSessionByToken, endSessions, rotateSession } from '../records/sessions.js';
import { askForSecondStep, completeSecondStep } from './second-step.js';
import { handOver, presentedDevice, signInKnown, startSession } from './flow.js';
import { invalidateTokens } from '../records/tokens.js';
import { router, type Procedures } from '../procedures.js';
import { findUserByEmail, publicUser, rememberLocale, setPasswordHash } from '../records/users.js';
import { meResult, passwordChangedResult, settingsResult, userResult } from './outputs.js';
import { twoStepStatus } from '../credentials/factors.js';

/**
 * The account procedures under `config`. Each input is a static schema (the password policy
 * comes from the configuration); what needs the request, how easy the new password is to guess
 * once the realm and the account are known, is checked in the resolver once the input is valid.
 * The input schemas leave that rule out (estimator null), so it is estimated once, in full.
 */
export function createAccountRouter(
  { publicProcedure, limitedProcedure, authedProcedure, authedLimitedProcedure }: Procedures,
  config: AccountConfig,
) {
  const policy = config.passwordPolicy;
  return router({
    /** What the pages need before any call: the realm and the password policy. */
    settings: publicProcedure.output(settingsResult).query(({ ctx }) => ({
      productName: ctx.config.productName,
      realm: { slug: ctx.realm.slug, name: ctx.realm.name, isDefault: ctx.realm.slug === DEFAULT_REALM_SLUG },
      passwordPolicy: { minLength: ctx.config.passwordPolicy.minLength, maxLength: PASSWORD_MAX_LENGTH },
    })),

    register: limitedProcedure('register')
      .input(registerSchema({ policy, estimator: null }))
      .output(userResult)
      .mutation(async ({ ctx, input: data }) => {
        // Shedding comes first; the estimate and the hash take their places in their queues at once
        // (the next request sees them), and run on their threads while the email is looked up.
        ctx.hasher.assertCapacity();
        const judging = checkNewPassword(ctx, data.password, data, 'password');
        const hashing = ctx.hasher.hash(data.password);
        hashing.catch(() => {}); // awaited below unless the password or the email is refused first
        await judging;
        if (await findUserByEmail(ctx.db, ctx.realm.id, data.email))
          throw fieldProblem('email', 'email_taken', 'email_taken');
        const passwordHash = await hashing;
        // A realm that requires a confirmed address starts no session before the address is
        // confirmed (sign-in would refuse it): the answer says to confirm it.
        const confirmFirst = await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id);
        const created = await ctx.db
          .transaction(async (tx) => {
            const [user] = await tx
              .insert(users)
              .values({ realmId: ctx.realm.id, name: data.name, email: data.email, passwordHash, locale: ctx.locale })
              .returning();
            const started = confirmFirst
              ? null
              : await startSession(tx, ctx, user!.id, {
                  tokens: parseDeviceCredential(ctx.deviceCredential),
                  known: null,
                });
            await recordEvent(tx, eventSource(ctx), 'registered', user!.id);
            await queueVerification(tx, ctx, user!);
            return { user: user!, started };
          })
          .catch((err: unknown) => {
            // The unique index decides a race between two registrations of one email.
            if (isUniqueViolation(err)) throw fieldProblem('email', 'email_taken', 'email_taken');
            throw err;
          });
        if (!created.started) return { user: publicUser(created.user, ctx.realm), emailVerificationRequired: true };
        return { user: publicUser(created.user, ctx.realm), ...handOver(ctx, created.started) };
      }),

    signIn: limitedProcedure('signIn')
      .input(signInSchema)
      .output(userResult)
      .mutation(async ({ ctx, input: data }) => {
        ctx.hasher.assertCapacity();
        const user = await findUserByEmail(ctx.db, ctx.realm.id, data.email);
        // An unknown email takes the same steps (a claim, one bcrypt, no further write), so neither
        // the answer nor its timing tells whether the account exists.
        const subject = lockoutSubject(ctx.realm.id, data.email, user?.id ?? null);
        const device = await presentedDevice(ctx, user?.id ?? null);
        const client = device.known ? deviceClient(device.known) : addressClient(ctx.clientIp);
        const check = await claimPasswordCheck(
          ctx.db,
          eventSource(ctx),
          'sign_in_failed',
          { subject, client, accountCap: true },
          ctx.config,
        );
        const ok = await check.during(() =>
          user
            ? ctx.hasher.verify(data.password, user.passwordHash)
            : ctx.hasher.verifyDummy(data.password).then(() => false),
        );
        const refuse = async () => {
          // The claim settles as this attempt's sign_in_failed event.
          await check.failed();
          return fieldProblem('password', 'credentials_invalid');
        };
        // A disabled account answers as a wrong password would, after the same hashing.
        if (!ok || !user || user.disabledAt) throw await refuse();
        // In a realm that requires a confirmed address, the right password of an unconfirmed account
        // gets its own answer (only after the password was checked, so it tells a guesser nothing).
        if (!user.emailVerifiedAt && (await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id))) {
          await check.passed(ctx.db, 'sign_in_unverified');
          throw new ProblemError('email_not_verified');
        }
        // Upgrades a hash made at an older cost, once signed in or asked for the second step;
        // losing a race to a password change is fine.
        const upgradeHash = async () => {
          if (!ctx.hasher.needsRehash(user.passwordHash)) return;
          const next = await ctx.hasher.hash(data.password);
          await setPasswordHash(ctx.db, user.id, next, { expected: user.passwordHash, rehash: true }).catch(() => null);
        };
        // With two-step sign-in the password only starts a pending sign-in: the code completes it.
        if (user.twoStep) {
          const ask = await askForSecondStep(ctx, user, check);
          if (!ask) throw await refuse();
          await upgradeHash();
          throw ask;
        }
        const started = await signInKnown(ctx, user, check, device);
        if (!started) throw await refuse();
        // The owner's language from now on; after the new-sign-in notice, which went out in the one they used before.
        await rememberLocale(ctx.db, user, ctx.locale);
        await upgradeHash();
        return { user: publicUser(user, ctx.realm), ...handOver(ctx, started) };
      }),

    /** The second step of a sign-in: the pending sign-in (cookie or `pending_token`) and a code. */
    signInSecondStep: limitedProcedure('signIn')
      .input(secondStepSchema)
      .output(userResult)
      .mutation(async ({ ctx, input }) => {
        const pendingToken = input.pending_token ?? ctx.pendingSignInToken ?? null;
        const { user, started } = await completeSecondStep(ctx, pendingToken, { code: input.code });
        await rememberLocale(ctx.db, user, ctx.locale);
        return { user: publicUser(user, ctx.realm), ...handOver(ctx, started) };
      }),

    signOut: publicProcedure.output(okResult).mutation(async ({ ctx }) => {
      const userId = await deleteSessionByToken(ctx.db, ctx.sessionToken, ctx.realm.id);
      if (userId) await recordEvent(ctx.db, eventSource(ctx), 'signed_out', userId);
      ctx.cookies.clear();
      return { ok: true as const };
    }),

    /** The signed-in account, and its two-step sign-in (no query unless it is on). */
    me: authedProcedure.output(meResult).query(async ({ ctx }) => ({
      user: publicUser(ctx.auth.user, ctx.realm),
      twoStep: await twoStepStatus(ctx.db, ctx.auth.user),
    })),

    changePassword: authedLimitedProcedure('changePassword')
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
          const revoked = await endSessions(tx, user.id, session.id);
          // Other browsers that knew the old password are no longer trusted as the owner's.
          await endKnownDevices(tx, user.id, knownDevice);
          const rotated = await rotateSession(tx, session);
          if (revoked > 0) await recordEvent(tx, eventSource(ctx), 'sessions_revoked', user.id);
          await invalidateTokens(tx, user.id, 'reset_password');
          await queuePasswordNotice(tx, ctx, user, 'changed');
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
  });
}
