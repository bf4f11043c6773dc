// NIST SP 800-63B-4 §3.1.1.2: length counted in the characters the person typed, no composition
// rules, and a check that refuses passwords an attacker would try early (common passwords,
// repeats, sequences, keyboard walks, dictionary words, the person's own name and email).
export const PASSWORD_MIN_LENGTH_DEFAULT = 15;
export const PASSWORD_MIN_LENGTH_FLOOR = 8;
export const PASSWORD_MAX_LENGTH = 256;

/**
 * The estimated number of guesses (log10) a new password must need: 10^10, zxcvbn's top score.
 * Below it sit long but predictable passwords such as `Password12345678!` and
 * `football football` (10^8); good passphrases of four ordinary words reach 10^12 and more.
 * Why this number: docs/http-api.md, "The password rule".
 */
export const PASSWORD_MIN_GUESSES_LOG10 = 10;

/**
 * The estimator reads this many characters (UTF-16 units) of the normalised password. Its work
 * grows steeply with length (seconds for 256 digits); a password whose first 64 characters are
 * easy to guess is refused like a short one.
 */
export const PASSWORD_ESTIMATE_LENGTH = 64;

export interface PasswordPolicy {
  minLength: number;
}

export const DEFAULT_POLICY: PasswordPolicy = { minLength: PASSWORD_MIN_LENGTH_DEFAULT };

/** What a password may not lean on: the account's own name, email and realm. */
export interface PasswordContext {
  name?: string;
  email?: string;
  /** The realm's slug. */
  realm?: string;
  /** The realm's name ("Acme Inc"). */
  realmName?: string;
  /** The service's name (PRODUCT_NAME): an attacker knows where the password is typed. */
  product?: string;
}

/**
 * Guesses an attacker needs for a password, as log10. The implementation (zxcvbn-ts with its
 * dictionaries, see password-estimator.ts) is heavy, so it is passed in rather than imported:
 * the browser loads it only where a new password is typed.
 */
export interface PasswordEstimator {
  guessesLog10(password: string, userInputs: readonly string[]): number;
}

/** The form comparisons and the hash use: Unicode NFKC, spaces kept. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Length as typed, in code points, before any normalisation (`ﷺ` is 1, not its 18 under NFKC). */
export function passwordLength(password: string): number {
  return [...password].length;
}

const simple = (s: string) => s.normalize('NFKC').toLowerCase().trim();

/**
 * The words an attacker who knows the account would try first: the name and its words, the email,
 * its local part and the parts of it, the domain and its first label, the realm and its parts.
 */
export function passwordUserInputs(ctx: PasswordContext): string[] {
  const words: string[] = [];
  if (ctx.name) words.push(ctx.name, ...ctx.name.split(/[\s._-]+/u), ctx.name.replace(/\s+/gu, ''));
  if (ctx.email) {
    const at = ctx.email.lastIndexOf('@');
    const local = at >= 0 ? ctx.email.slice(0, at) : ctx.email;
    const domain = at >= 0 ? ctx.email.slice(at + 1) : '';
    words.push(ctx.email, local, ...local.split(/[._+-]+/u), domain, domain.split('.')[0] ?? '');
  }
  for (const place of [ctx.realm, ctx.realmName, ctx.product])
    if (place) words.push(place, ...place.split(/[\s._-]+/u), place.replace(/\s+/gu, ''));
  return [...new Set(words.map(simple).filter((w) => [...w].length >= 3))];
}

export type PasswordVerdict = 'ok' | 'password_too_common' | 'password_too_similar';

/**
 * The rule for a new password's content (its length is checked on its own).
 * Weak with the person's own words counted as known to the attacker, but strong without them:
 * `password_too_similar`. Weak in any case: `password_too_common`.
 */
export function judgePassword(password: string, ctx: PasswordContext, estimator: PasswordEstimator): PasswordVerdict {
  return assess(password, ctx, estimator).verdict;
}

function assess(password: string, ctx: PasswordContext, estimator: PasswordEstimator) {
  const p = normalizePassword(password).slice(0, PASSWORD_ESTIMATE_LENGTH);
  const guessesLog10 = estimator.guessesLog10(p, passwordUserInputs(ctx));
  if (guessesLog10 >= PASSWORD_MIN_GUESSES_LOG10) return { verdict: 'ok' as const, guessesLog10 };
  const alone = estimator.guessesLog10(p, []);
  return {
    verdict: alone >= PASSWORD_MIN_GUESSES_LOG10 ? ('password_too_similar' as const) : ('password_too_common' as const),
    guessesLog10,
  };
}

export type StrengthCheck = 'length' | 'not_common' | 'not_similar';

export interface PasswordStrength {
  /** Which rules the password meets; all false while the estimator is still loading. */
  passed: Record<StrengthCheck, boolean>;
  /** True exactly when the server would accept the password (given the same policy and context). */
  acceptable: boolean;
  /** 0–4; 2 and more only when acceptable. */
  score: 0 | 1 | 2 | 3 | 4;
  /** The estimator has not loaded yet: nothing but the length is known. */
  pending: boolean;
}

/**
 * The strength meter's reading, from the server's own rule: without an estimator (still loading)
 * no password is called acceptable. Above the threshold the score only grades the margin.
 */
export function passwordStrength(
  password: string,
  policy: PasswordPolicy,
  ctx: PasswordContext,
  estimator: PasswordEstimator | null | undefined,
): PasswordStrength {
  const length = passwordLength(password);
  const lengthOk = length >= policy.minLength && length <= PASSWORD_MAX_LENGTH;
  if (!estimator || length === 0) {
    return {
      passed: { length: lengthOk, not_common: false, not_similar: false },
      acceptable: false,
      score: lengthOk ? 1 : 0,
      pending: !estimator,
    };
  }
  const { verdict, guessesLog10 } = assess(password, ctx, estimator);
  const passed = {
    length: lengthOk,
    not_common: verdict !== 'password_too_common',
    not_similar: verdict !== 'password_too_similar',
  };
  const acceptable = passed.length && verdict === 'ok';
  let score: PasswordStrength['score'] = guessesLog10 >= PASSWORD_MIN_GUESSES_LOG10 / 2 ? 1 : 0;
  if (acceptable)
    score = guessesLog10 >= PASSWORD_MIN_GUESSES_LOG10 + 6 ? 4 : guessesLog10 >= PASSWORD_MIN_GUESSES_LOG10 + 3 ? 3 : 2;
  return { passed, acceptable, score, pending: false };
}

let loading: Promise<PasswordEstimator> | undefined;

/**
 * Loads the estimator and its dictionaries (1.7 MB, 850 kB gzipped) on first use; a bundler puts them in a
 * chunk of their own, fetched only when this is called.
 */
export function loadPasswordEstimator(): Promise<PasswordEstimator> {
  loading ??= import('./password-estimator.js')
    .then((m) => m.passwordEstimator())
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}
