import { isUniqueViolation, users } from '@accounts/db';
import type { registerSchema } from '@accounts/validators';
import type { z } from 'zod';
import { parseDeviceCredential } from '../credentials/known-devices.js';
import { checkNewPassword } from '../credentials/new-password.js';
import { fieldProblem } from '../kernel/errors.js';
import { queueVerification } from '../mail/notices.js';
import type { Context } from '../kernel/context.js';
import { eventSource, recordEvent } from '../records/events.js';
import { realmRequiresVerifiedEmail } from '../records/realm-settings.js';
import { findUserByEmail, publicUser } from '../records/users.js';
import { answer, PASSWORD_ONLY, startSession } from './flow.js';

type RegisterInput = z.output<ReturnType<typeof registerSchema>>;

/**
 * Creates an account and signs it in: its first session starts in the transaction that creates
 * it, as a password sign-in's would. A realm that requires a confirmed address starts none before
 * the address is confirmed (sign-in would refuse it): the answer says to confirm it.
 */
export async function register(ctx: Context, data: RegisterInput) {
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
  const confirmFirst = await realmRequiresVerifiedEmail(ctx.db, ctx.realm.id);
  const created = await ctx.db
    .transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ realmId: ctx.realm.id, name: data.name, email: data.email, passwordHash, locale: ctx.locale })
        .returning();
      const device = { tokens: parseDeviceCredential(ctx.deviceCredential), known: null };
      const started = confirmFirst ? null : await startSession(tx, ctx, user!.id, device, PASSWORD_ONLY);
      await recordEvent(tx, eventSource(ctx), 'registered', user!.id);
      await queueVerification(tx, ctx, user!);
      return { user: user!, started };
    })
    .catch((err: unknown) => {
      // The unique index decides a race between two registrations of one email.
      if (isUniqueViolation(err)) throw fieldProblem('email', 'email_taken', 'email_taken');
      throw err;
    });
  if (!created.started) return { user: publicUser(created.user, ctx.realm), emailVerificationRequired: true as const };
  return answer(ctx, { next: 'signed_in', user: created.user, started: created.started });
}
