import { changePasswordSchema, PASSWORD_MAX_LENGTH, registerSchema, signInSchema, type PasswordContext } from '@accounts/validators';
import type { AccountConfig } from '../config.js';
import { okResult, passwordChangedResult, settingsResult, userResult } from '../outputs.js';
import { isUniqueViolation, users, type Database } from '@accounts/db';
import { addressClient, claimPasswordCheck, deviceClient, lockoutSubject } from '../account-lockout.js';
import { fieldProblem, ProblemError } from '../errors.js';
import { recordEvent } from '../events.js';
import { DEFAULT_REALM_SLUG } from '../realms.js';
import { endKnownDevices, knownDeviceOf, parseDeviceCredential, rememberDevice } from '../known-devices.js';
import { createSession, deleteSessionByToken, revokeOtherSessions, rotateSession, type IssuedSession } from '../sessions.js';
import { proceduresFor, router, type Context } from '../trpc.js';
import { verifyCurrentPassword } from '../current-password.js';
import { findUserByEmail, lockIfHashUnchanged, publicUser, rememberLocale, replacePasswordHash } from '../users.js';
import { queueNewSignIn, queuePasswordNotice, queueVerification } from '../mail/notices.js';
import { realmRequiresVerifiedEmail } from '../realm-settings.js';
import { invalidateTokens } from '../tokens.js';

const source = (ctx: Context) => ({ realmId: ctx.realm.id, clientIp: ctx.clientIp, userAgent: ctx.userAgent });

/** The password rule's content part (how easy to guess), with the person's own words known. */
export async function checkPasswordContent(ctx: Context, password: string, context: PasswordContext, field: string) {
  const verdict = await ctx.hasher.judge(password, context);
  if (verdict !== 'ok') throw fieldProblem(field, verdict);
}

/**
 * What a sign-in or registration does once the person is known: the session the client
 * presented ends (a new sign-in never keeps an old token alive), a new one starts, and the
 * client becomes (or stays) a known device of the account.
 */
export async function startSession(tx: Database, ctx: Context, userId: string, devices: string[], knownDevice: string | null) {
  if (ctx.sessionToken) await deleteSessionByToken(tx, ctx.sessionToken, ctx.realm.id);
  const session = await createSession(tx, userId, ctx.config, { userAgent: ctx.userAgent, clientIp: ctx.clientIp });
  const credential = await rememberDevice(tx, userId, devices, knownDevice);
  return { session, credential };
}

/** Gives the client its tokens: as cookies, or in the result for a program that asked for them. */
export function handOver(ctx: Context, started: { session: IssuedSession; credential: string }) {
  ctx.session.issue(started.session);
  ctx.session.rememberDevice(started.credential, new Date(Date.now() + ctx.config.knownDeviceTtlMs));
  return ctx.session.tokensInBody ? { session: started.session, knownDevice: started.credential } : {};
}

/**
 * The account procedures under `config`. Each input is a static schema (the password policy
 * comes from the configuration); what needs the request, how easy the new password is to guess
 * once the realm and the account are known, is checked in the resolver once the input is valid.
 * The input schemas leave that rule out (estimator null), so it is estimated once, in full.
 */
export function createAccountRouter(config: AccountConfig) {
  const { publicProcedure, limitedProcedure, authedProcedure, authedLimitedProcedure } = proceduresFor(config);
  const policy = config.passwordPolicy;
  return router({
  /** What the pages need before any call: the realm and the password policy. */
  settings: publicProcedure.output(settingsResult).query(({ ctx }) => ({
    productName: ctx.config.productName,
    realm: { slug: ctx.realm.slug, name: ctx.realm.name, isDefault: ctx.realm.slug === DEFAULT_REALM_SLUG },
    passwordPolicy: { minLength: ctx.config.passwordPolicy.minLength, maxLength: PASSWORD_MAX_LENGTH },
  })),

  register: limitedProcedure('register').input(registerSchema({ policy, estimator: null })).output(userResult).mutation(async ({ ctx, input: data }) => {
    // Shedding comes first; the estimate and the hash take their places in their queues at once
    // (the next request sees them), and run on their threads while the email is looked up.
    ctx.hasher.assertCapacity();
    const judging = checkPasswordContent(ctx, data.password, { name: data.name, email: data.email, realm: ctx.realm.slug }, 'password');
    const hashing = ctx.hasher.hash(data.password);
    hashing.catch(() => {}); // awaited below unless the password or the email is refused first
    await judging;
    if (await findUserByEmail(ctx.db, ctx.realm.id, data.email)) throw fieldProblem('email', 'email_taken', 'email_taken');
    const passwordHash = await hashing;
    const created = await ctx.db
      .transaction(async (tx) => {
        const [user] = await tx.insert(users).values({ realmId: ctx.realm.id, name: data.name, email: data.email, passwordHash, locale: ctx.locale }).returning();
        const started = await startSession(tx, ctx, user!.id, parseDeviceCredential(ctx.deviceCredential), null);
        await recordEvent(tx, source(ctx), 'registered', user!.id);
        await queueVerification(tx, ctx, user!);
        return { user: user!, started };
      })
      .catch((err: unknown) => {
        // The unique index decides a race between two registrations of one email.
        if (isUniqueViolation(err)) throw fieldProblem('email', 'email_taken', 'email_taken');
        throw err;
      });
    return { user: publicUser(created.user, ctx.realm), ...handOver(ctx, created.started) };
  }),

  signIn: limitedProcedure('signIn').input(signInSchema).output(userResult).mutation(async ({ ctx, input: data }) => {
    ctx.hasher.assertCapacity();
    const user = await findUserByEmail(ctx.db, ctx.realm.id, data.email);
    // An unknown email takes the same steps (a claim, one bcrypt, no further write), so neither
    // the answer nor its timing tells whether the account exists.
    const subject = lockoutSubject(ctx.realm.id, data.email, user?.id ?? null);
    // The device lookup runs for unknown emails too (it finds nothing), so it tells nothing apart.
    const devices = parseDeviceCredential(ctx.deviceCredential);
    const knownDevice = await knownDeviceOf(ctx.db, user?.id ?? null, devices);
    const client = knownDevice ? deviceClient(knownDevice) : addressClient(ctx.clientIp);
    const check = await claimPasswordCheck(ctx.db, source(ctx), 'sign_in_failed', { subject, client, accountCap: true }, ctx.config);
    const ok = await check.during(() => (user ? ctx.hasher.verify(data.password, user.passwordHash) : ctx.hasher.verifyDummy(data.password).then(() => false)));
    // In a realm that requires a confirmed address, the right password of an unconfirmed account
    // gets its own answer (only after the password was checked, so it tells a guesser nothing).
    if (ok && user && !user.disabledAt && !user.emailVerifiedAt && (await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id))) {
      await check.passed(ctx.db, 'sign_in_unverified');
      throw new ProblemError('email_not_verified');
    }
    // A disabled account answers as a wrong password would, after the same hashing.
    const started =
      ok && user && !user.disabledAt
        ? await ctx.db.transaction(async (tx) => {
            // A password change that commits first makes the verified hash stale: no session then.
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash))) return null;
            await check.passed(tx, 'signed_in');
            // A client that is not a known device of the account: the owner hears of it.
            if (!knownDevice) await queueNewSignIn(tx, ctx, user);
            return startSession(tx, ctx, user.id, devices, knownDevice);
          })
        : null;
    if (!started || !user) {
      // The claim settles as this attempt's sign_in_failed event.
      await check.failed();
      throw fieldProblem('password', 'credentials_invalid');
    }
    // The owner's language from now on; after the notice above, which went out in the one they used before.
    await rememberLocale(ctx.db, user, ctx.locale);
    if (ctx.hasher.needsRehash(user.passwordHash)) {
      // Upgrades a hash made at an older cost; losing a race to a password change is fine.
      await replacePasswordHash(ctx.db, user.id, user.passwordHash, await ctx.hasher.hash(data.password)).catch(() => false);
    }
    return { user: publicUser(user, ctx.realm), ...handOver(ctx, started) };
  }),

  signOut: publicProcedure.output(okResult).mutation(async ({ ctx }) => {
    const userId = ctx.sessionToken ? await deleteSessionByToken(ctx.db, ctx.sessionToken, ctx.realm.id) : null;
    if (userId) await recordEvent(ctx.db, source(ctx), 'signed_out', userId);
    ctx.session.clear();
    return { ok: true as const };
  }),

  me: authedProcedure.output(userResult).query(({ ctx }) => ({ user: publicUser(ctx.auth.user, ctx.realm) })),

  changePassword: authedLimitedProcedure('changePassword').input(changePasswordSchema({ policy, estimator: null })).output(passwordChangedResult).mutation(async ({ ctx, input: data }) => {
    const { user, session } = ctx.auth;
    ctx.hasher.assertCapacity(2);
    await checkPasswordContent(ctx, data.new_password, { name: user.name, email: user.email, realm: ctx.realm.slug }, 'new_password');
    const { check, knownDevice, incorrect } = await verifyCurrentPassword(ctx, ctx.auth, data.current_password);
    const nextHash = await check.during(() => ctx.hasher.hash(data.new_password));
    const outcome = await ctx.db.transaction(async (tx) => {
      if (!(await replacePasswordHash(tx, user.id, user.passwordHash, nextHash))) return null;
      await check.passed(tx, 'password_changed');
      const revoked = await revokeOtherSessions(tx, user.id, session.id);
      // Other browsers that knew the old password are no longer trusted as the owner's.
      await endKnownDevices(tx, user.id, knownDevice);
      const rotated = await rotateSession(tx, session);
      if (revoked > 0) await recordEvent(tx, source(ctx), 'sessions_revoked', user.id);
      await invalidateTokens(tx, user.id, 'reset_password');
      await queuePasswordNotice(tx, ctx, user, 'changed');
      await rememberLocale(tx, user, ctx.locale);
      return { revoked, rotated };
    });
    // Another change from the same current password won the race: this one's password is now wrong.
    if (!outcome) throw await incorrect();
    ctx.session.issue(outcome.rotated);
    return { ok: true as const, otherSessionsRevoked: outcome.revoked, ...(ctx.session.tokensInBody ? { session: outcome.rotated } : {}) };
  }),
});
}
