import { COMMON_PASSWORDS } from './common-passwords.generated.js';

// NIST SP 800-63B-4 §3.1.1.2: length in code points, no composition rules,
// a blocklist of common passwords and context-specific words.
export const PASSWORD_MIN_LENGTH_DEFAULT = 15;
export const PASSWORD_MIN_LENGTH_FLOOR = 8;
export const PASSWORD_MAX_LENGTH = 256;
/** Context words shorter than this are too generic to reject a password for. */
const SIMILARITY_MIN_TOKEN = 4;

export interface PasswordPolicy {
  minLength: number;
}

export const DEFAULT_POLICY: PasswordPolicy = { minLength: PASSWORD_MIN_LENGTH_DEFAULT };

/** What a password may not resemble: the account's own name, email and realm. */
export interface PasswordContext {
  name?: string;
  email?: string;
  realm?: string;
}

let commonSet: Set<string> | undefined;

/** The form every check and the hash use: Unicode NFKC, spaces kept. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

export function passwordLength(password: string): number {
  return [...normalizePassword(password)].length;
}

export function isCommonPassword(password: string): boolean {
  commonSet ??= new Set(COMMON_PASSWORDS.split('\n'));
  const p = normalizePassword(password).toLowerCase();
  return commonSet.has(p) || commonSet.has(p.trim());
}

function compact(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function contextTokens(ctx: PasswordContext): string[] {
  const tokens: string[] = [];
  if (ctx.name) tokens.push(compact(ctx.name), ...ctx.name.split(/\s+/).map(compact));
  if (ctx.email) {
    const [local = '', domain = ''] = ctx.email.split('@');
    tokens.push(compact(local), compact(ctx.email), ...local.split(/[._+-]+/).map(compact), compact(domain.split('.')[0] ?? ''));
  }
  if (ctx.realm) tokens.push(compact(ctx.realm), ...ctx.realm.split(/[\s._-]+/).map(compact));
  return [...new Set(tokens.filter((t) => t.length >= SIMILARITY_MIN_TOKEN))];
}

/** True when the password contains the user's name, email, or realm, or is contained in them. */
export function isTooSimilar(password: string, ctx: PasswordContext): boolean {
  const p = compact(password);
  if (!p) return false;
  return contextTokens(ctx).some((t) => p.includes(t) || t.includes(p));
}

export type StrengthCheck = 'length' | 'not_common' | 'not_similar';

/**
 * The checks behind the strength meter, identical to the server's rules:
 * which of them the password passes, and a score from 0 to 4.
 */
export function passwordStrength(password: string, policy: PasswordPolicy, ctx: PasswordContext) {
  const length = passwordLength(password);
  const passed: Record<StrengthCheck, boolean> = {
    length: length >= policy.minLength && length <= PASSWORD_MAX_LENGTH,
    not_common: length > 0 && !isCommonPassword(password),
    not_similar: length > 0 && !isTooSimilar(password, ctx),
  };
  const acceptable = passed.length && passed.not_common && passed.not_similar;
  const distinct = new Set(normalizePassword(password)).size;
  let score = 0;
  if (acceptable) {
    score = 2;
    if (length >= policy.minLength + 5 && distinct >= 10) score = 3;
    if (length >= policy.minLength + 10 && distinct >= 14) score = 4;
  } else if (length >= Math.ceil(policy.minLength / 2)) {
    score = 1;
  }
  return { passed, acceptable, score };
}
