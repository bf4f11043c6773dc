import {
  changePasswordSchema,
  PASSWORD_MAX_LENGTH,
  registerSchema,
  signInSchema,
  type ChangePasswordInput,
  type RegisterInput,
  type SignInInput,
} from '@accounts/validators';
import { isUniqueViolation, users } from '@accounts/db';
import { claimPasswordCheck, lockoutSubject } from '../account-lockout.js';
import { fieldProblem, ProblemError } from '../errors.js';
import { recordEvent } from '../events.js';
import { createSession, deleteSessionByToken, revokeOtherSessions, rotateSession } from '../sessions.js';
import { authedProcedure, authenticate, limitedProcedure, parseInput, publicProcedure, router, typed, type Context } from '../trpc.js';
import { findUserByEmail, lockIfHashUnchanged, publicUser, replacePasswordHash } from '../users.js';

const source = (ctx: Context) => ({ realmId: ctx.realm.id, clientIp: ctx.clientIp });

export const accountRouter = router({
  /** What the pages need before any call: the realm and the password policy. */
  settings: publicProcedure.query(({ ctx }) => ({
    realm: { slug: ctx.realm.slug, name: ctx.realm.name },
    passwordPolicy: { minLength: ctx.config.passwordPolicy.minLength, maxLength: PASSWORD_MAX_LENGTH },
  })),

  register: limitedProcedure('register').input(typed<RegisterInput>()).mutation(async ({ ctx, input }) => {
    const data = parseInput(registerSchema({ policy: ctx.config.passwordPolicy, realm: ctx.realm.slug }), input);
    // Shedding comes before any database work, so an overloaded server refuses cheaply.
    ctx.hasher.assertCapacity();
    if (await findUserByEmail(ctx.db, ctx.realm.id, data.email)) throw fieldProblem('email', 'email_taken', 'email_taken');
    const passwordHash = await ctx.hasher.hash(data.password);
    const created = await ctx.db
      .transaction(async (tx) => {
        const [user] = await tx.insert(users).values({ realmId: ctx.realm.id, name: data.name, email: data.email, passwordHash }).returning();
        const session = await createSession(tx, user!.id, ctx.config);
        await recordEvent(tx, source(ctx), 'registered', user!.id);
        return { user: user!, session };
      })
      .catch((err: unknown) => {
        // The unique index decides a race between two registrations of one email.
        if (isUniqueViolation(err)) throw fieldProblem('email', 'email_taken', 'email_taken');
        throw err;
      });
    ctx.session.issue(created.session);
    return { user: publicUser(created.user, ctx.realm) };
  }),

  signIn: limitedProcedure('signIn').input(typed<SignInInput>()).mutation(async ({ ctx, input }) => {
    const data = parseInput(signInSchema, input);
    ctx.hasher.assertCapacity();
    const user = await findUserByEmail(ctx.db, ctx.realm.id, data.email);
    // An unknown email takes the same steps (a claim, one bcrypt, no further write), so neither
    // the answer nor its timing tells whether the account exists.
    const subject = lockoutSubject(ctx.realm.id, data.email, user?.id ?? null);
    const check = await claimPasswordCheck(ctx.db, source(ctx), 'sign_in_failed', subject, ctx.config);
    const ok = await check.during(() => (user ? ctx.hasher.verify(data.password, user.passwordHash) : ctx.hasher.verifyDummy(data.password).then(() => false)));
    const session =
      ok && user
        ? await ctx.db.transaction(async (tx) => {
            // A password change that commits first makes the verified hash stale: no session then.
            if (!(await lockIfHashUnchanged(tx, user.id, user.passwordHash))) return null;
            await check.passed(tx, 'signed_in');
            return createSession(tx, user.id, ctx.config);
          })
        : null;
    // Otherwise the claim stays, as this attempt's sign_in_failed event.
    if (!session || !user) throw fieldProblem('password', 'credentials_invalid');
    if (ctx.hasher.needsRehash(user.passwordHash)) {
      // Upgrades a hash made at an older cost; losing a race to a password change is fine.
      await replacePasswordHash(ctx.db, user.id, user.passwordHash, await ctx.hasher.hash(data.password)).catch(() => false);
    }
    ctx.session.issue(session);
    return { user: publicUser(user, ctx.realm) };
  }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    const userId = ctx.sessionToken ? await deleteSessionByToken(ctx.db, ctx.sessionToken, ctx.realm.id) : null;
    if (userId) await recordEvent(ctx.db, source(ctx), 'signed_out', userId);
    ctx.session.clear();
    return { ok: true as const };
  }),

  me: authedProcedure.query(({ ctx }) => ({ user: publicUser(ctx.auth.user, ctx.realm) })),

  changePassword: limitedProcedure('changePassword').use(authenticate).input(typed<ChangePasswordInput>()).mutation(async ({ ctx, input }) => {
    const { user, session } = ctx.auth;
    const context = { name: user.name, email: user.email, realm: ctx.realm.slug };
    const data = parseInput(changePasswordSchema({ policy: ctx.config.passwordPolicy, context }), input);
    ctx.hasher.assertCapacity(2);
    const check = await claimPasswordCheck(ctx.db, source(ctx), 'password_change_failed', lockoutSubject(ctx.realm.id, user.email, user.id), ctx.config);
    // A wrong current password leaves the claim as this attempt's password_change_failed event.
    const incorrect = () => fieldProblem('current_password', 'password_incorrect');
    if (!(await check.during(() => ctx.hasher.verify(data.current_password, user.passwordHash)))) throw incorrect();
    const nextHash = await check.during(() => ctx.hasher.hash(data.new_password));
    const outcome = await ctx.db.transaction(async (tx) => {
      if (!(await replacePasswordHash(tx, user.id, user.passwordHash, nextHash))) return null;
      await check.passed(tx, 'password_changed');
      const revoked = await revokeOtherSessions(tx, user.id, session.id);
      const rotated = await rotateSession(tx, session);
      if (revoked > 0) await recordEvent(tx, source(ctx), 'sessions_revoked', user.id);
      return { revoked, rotated };
    });
    // Another change from the same current password won the race: this one's password is now wrong.
    if (!outcome) throw incorrect();
    ctx.session.issue(outcome.rotated);
    return { ok: true as const, otherSessionsRevoked: outcome.revoked };
  }),
});

