import type { SecondStepMethod } from '@accounts/validators';
import type { FormOutcome } from '../../page-data';
import type { Problem } from '../../trpc';

/**
 * Where the sign-in is: the password, or the second step of an account with two-step sign-in (its
 * ways: a passkey, the app's code, a recovery code). Back at the password, `back` says how: the
 * second step expired, too many wrong codes ended it (`wait`: seconds until this device may sign
 * in again), or the person chose to start again.
 */
export type Step =
  | { name: 'password'; email: string; back?: 'expired' | 'too_many_codes' | 'restart'; wait?: number }
  | { name: 'code'; email: string; methods: SecondStepMethod[] };

/** Back at the password because the second step's refusal ended the pending sign-in. */
export const endedStep = (email: string, ended: Problem): Step =>
  ended.code === 'too_many_codes' && ended.retryAfter !== undefined
    ? { name: 'password', email, back: 'too_many_codes', wait: ended.retryAfter }
    : { name: 'password', email, back: 'expired' };

/** The ways of a second step as the server listed them; an answer without them means the app's code or a recovery code. */
export const methodsOf = (listed: readonly string[] | undefined): SecondStepMethod[] => {
  const known = (listed ?? []).filter((m): m is SecondStepMethod => ['passkey', 'totp', 'recovery_code'].includes(m));
  return known.length > 0 ? known : ['totp', 'recovery_code'];
};

/** The second step the address names (`?step=second&methods=`): a sign-in at a provider for an account with two-step sign-in. */
export const addressedStep = (search: URLSearchParams): Step | null =>
  search.get('step') === 'second'
    ? { name: 'code', email: '', methods: methodsOf(search.get('methods')?.split(' ')) }
    : null;

/**
 * Where a sign-in posted without scripts stands: the password was right and the account asks for
 * its second step; or that step was refused (a wrong code: again; expired: back to the password).
 */
export function postedStep(password: FormOutcome | null, second: FormOutcome | null): Step | null {
  if (password?.problem?.code === 'second_factor_required')
    return { name: 'code', email: password.values.email ?? '', methods: methodsOf(password.problem.methods) };
  if (!second?.problem) return null;
  const email = second.values.email ?? '';
  if (second.problem.code === 'sign_in_expired' || second.problem.code === 'too_many_codes')
    return endedStep(email, second.problem);
  return { name: 'code', email, methods: methodsOf(second.values.methods?.split(' ')) };
}
