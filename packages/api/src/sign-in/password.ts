import type { signInSchema } from '@accounts/validators';
import type { z } from 'zod';
import { lockoutSubject } from '../credentials/lockout.js';
import { fieldProblem } from '../kernel/errors.js';
import { findUserByEmail, hasPassword, setPasswordHash } from '../records/users.js';
import type { SignInMethod } from './flow.js';

/**
 * The password: a first step (an account with two-step sign-in is then asked for its second). An
 * unknown email takes the same steps (a claim, one bcrypt, no further write), so neither the
 * answer nor its timing tells whether the account exists.
 */
export const passwordMethod: SignInMethod<z.output<typeof signInSchema>> = {
  failure: 'sign_in_failed',
  completes: 'first',
  async identify(ctx, input) {
    ctx.hasher.assertCapacity();
    const user = await findUserByEmail(ctx.db, ctx.realm.id, input.email);
    return { user, subject: lockoutSubject(ctx.realm.id, input.email, user?.id ?? null), state: null };
  },
  async verify(ctx, { user }, input) {
    // An account without a password (made by an upstream sign-in) costs the same bcrypt as an unknown one.
    const ok =
      user && hasPassword(user)
        ? await ctx.hasher.verify(input.password, user.passwordHash)
        : await ctx.hasher.verifyDummy(input.password).then(() => false);
    return ok ? {} : null;
  },
  refusal: () => fieldProblem('password', 'credentials_invalid'),
  /** Upgrades a hash made at an older cost; losing a race to a password change is fine. */
  async passed(ctx, user, input) {
    if (!ctx.hasher.needsRehash(user.passwordHash)) return;
    const next = await ctx.hasher.hash(input.password);
    await setPasswordHash(ctx.db, user.id, next, { expected: user.passwordHash, rehash: true }).catch(() => null);
  },
};
