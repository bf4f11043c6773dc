import type { User } from '@accounts/db';
import { fieldProblem } from '../kernel/errors.js';
import type { Context } from '../kernel/context.js';

/**
 * The password rule's content part (how easy to guess) for a new password, with the person's own
 * words known: their name, their email, the realm (its
 * slug and name) and the service's name. The input schemas leave this part out
 * (estimator null), so it is estimated once, in full, on the estimating thread.
 */
export async function checkNewPassword(
  ctx: Context,
  password: string,
  person: Pick<User, 'name' | 'email'>,
  field: string,
): Promise<void> {
  const verdict = await ctx.hasher.judge(password, {
    name: person.name,
    email: person.email,
    realm: ctx.realm.slug,
    realmName: ctx.realm.name,
    product: ctx.config.productName,
  });
  if (verdict !== 'ok') throw fieldProblem(field, verdict);
}
