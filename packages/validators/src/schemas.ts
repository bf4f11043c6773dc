import { z } from 'zod';
import { EMAIL_LOCAL_MAX_OCTETS, EMAIL_MAX_LENGTH, normalizeEmail } from './email.js';
import { nameProblem, normalizeName } from './name.js';
import {
  DEFAULT_POLICY,
  judgePassword,
  normalizePassword,
  passwordLength,
  PASSWORD_MAX_LENGTH,
  type PasswordContext,
  type PasswordEstimator,
  type PasswordPolicy,
} from './password-policy.js';

// The one definition of each input. Issue messages are stable codes from messages.ts;
// toFieldErrors() turns them into { field, code, message } for every caller.

// The WHATWG "valid email address" production: what browsers accept for <input type=email>.
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const codePoints = (s: string) => [...s].length;
const utf8 = new TextEncoder();

// A lone UTF-16 surrogate (JSON allows "\ud800") is not text: stored or hashed, it would
// silently turn into U+FFFD, so two different passwords would hash alike.
const LONE_SURROGATE = /\p{Cs}/u;

/** A string field: missing gives `required`, any other type or ill-formed text `invalid_type`. */
const text = () =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') })
    .refine((s) => !LONE_SURROGATE.test(s), { error: 'invalid_type' });

const filled = () => text().min(1, { error: 'required' });

/** A display name, mapped and checked after the PRECIS Nickname profile (RFC 8266); see name.ts. */
export const nameField = text()
  .overwrite(normalizeName)
  .min(1, { error: 'required' })
  .superRefine((s, ctx) => {
    const problem = nameProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.code, params: problem.params });
  });

/**
 * An address an account may already have (sign-in, forgotten password): the rules every stored
 * address met when it was registered, so no account is shut out by a rule added later.
 */
export const knownEmailField = text()
  .overwrite(normalizeEmail)
  .min(1, { error: 'required' })
  .refine((s) => codePoints(s) <= EMAIL_MAX_LENGTH, { error: 'email_too_long', params: { max: EMAIL_MAX_LENGTH } })
  .regex(EMAIL_PATTERN, { error: 'invalid_email' })
  // RFC 5321 §4.5.3.1.1: a local part holds at most 64 octets.
  .refine((s) => utf8.encode(s.slice(0, s.lastIndexOf('@'))).length <= EMAIL_LOCAL_MAX_OCTETS, {
    error: 'email_local_too_long',
    params: { max: EMAIL_LOCAL_MAX_OCTETS },
  });

/** An address given to an account (registration): a known address's rules, and a deliverable local part. */
export const emailField = knownEmailField
  // RFC 5321 §4.1.2: a dot-string local part is atoms joined by single dots (none first or last,
  // never two together); the WHATWG grammar lets those through, and mail servers refuse them.
  .refine((s) => !/^\.|\.\.|\.@/.test(s.slice(0, s.lastIndexOf('@') + 1)), { error: 'invalid_email' });

/** A new password: length rules only, counted as typed; the rules that need other fields run on the object. */
export const newPasswordField = (policy: PasswordPolicy) =>
  filled()
    .refine((p) => passwordLength(p) >= policy.minLength, {
      error: 'password_too_short',
      params: { min: policy.minLength },
    })
    .refine((p) => passwordLength(p) <= PASSWORD_MAX_LENGTH, {
      error: 'password_too_long',
      params: { max: PASSWORD_MAX_LENGTH },
    });

/** An existing password is only compared, never judged; the cap keeps hashing bounded. */
export const currentPasswordField = filled().refine((p) => codePoints(p) <= PASSWORD_MAX_LENGTH * 4, {
  error: 'password_incorrect',
});

type Ctx = z.RefinementCtx;

/** The content rule, for a password whose length is already right (the estimator reads its start). */
function checkNewPassword(
  password: string,
  policy: PasswordPolicy,
  context: PasswordContext,
  estimator: PasswordEstimator | null,
  field: string,
  ctx: Ctx,
) {
  if (!estimator) return;
  const length = passwordLength(password);
  if (length < policy.minLength || length > PASSWORD_MAX_LENGTH) return;
  const verdict = judgePassword(password, context, estimator);
  if (verdict !== 'ok') ctx.addIssue({ code: 'custom', path: [field], message: verdict });
}

function same(a: string, b: string) {
  return normalizePassword(a) === normalizePassword(b);
}

// Cross-field checks run even when a field failed, so every field error comes back at once;
// only a body that is not an object at all skips them.
const runEvenWithFieldErrors = {
  when: (p: { value: unknown }) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value),
};

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
// Object checks also run when a field had the wrong type, so each value is checked again here.
const textOr = (v: unknown) => (typeof v === 'string' ? v : undefined);

export interface RegisterOptions {
  policy?: PasswordPolicy;
  realm?: string;
  /**
   * Judges how easy the password is to guess (password-estimator.ts). The server always passes
   * one; `null` leaves that rule to the server (a browser that has not loaded it yet).
   */
  estimator: PasswordEstimator | null;
}

export const registerSchema = ({ policy = DEFAULT_POLICY, realm, estimator }: RegisterOptions) =>
  z
    .object({ name: nameField, email: emailField, password: newPasswordField(policy), password2: filled() })
    .superRefine((v, ctx) => {
      if (isText(v.password))
        checkNewPassword(
          v.password,
          policy,
          { name: textOr(v.name), email: textOr(v.email), realm },
          estimator,
          'password',
          ctx,
        );
      if (isText(v.password) && isText(v.password2) && !same(v.password, v.password2))
        ctx.addIssue({ code: 'custom', path: ['password2'], message: 'password_mismatch' });
    }, runEvenWithFieldErrors);

export interface ChangePasswordOptions {
  policy?: PasswordPolicy;
  /** The account's own name, email and realm, which the new password may not resemble. */
  context?: PasswordContext;
  /** As for registerSchema. */
  estimator: PasswordEstimator | null;
}

export const changePasswordSchema = ({ policy = DEFAULT_POLICY, context = {}, estimator }: ChangePasswordOptions) =>
  z
    .object({
      current_password: currentPasswordField,
      new_password: newPasswordField(policy),
      confirm_password: filled(),
    })
    .superRefine((v, ctx) => {
      if (isText(v.new_password)) checkNewPassword(v.new_password, policy, context, estimator, 'new_password', ctx);
      if (isText(v.new_password) && isText(v.current_password) && same(v.new_password, v.current_password))
        ctx.addIssue({ code: 'custom', path: ['new_password'], message: 'password_unchanged' });
      if (isText(v.new_password) && isText(v.confirm_password) && !same(v.new_password, v.confirm_password))
        ctx.addIssue({ code: 'custom', path: ['confirm_password'], message: 'password_mismatch' });
    }, runEvenWithFieldErrors);

export const signInSchema = z.object({ email: knownEmailField, password: currentPasswordField });

export type RegisterInput = z.input<ReturnType<typeof registerSchema>>;
export type ChangePasswordInput = z.input<ReturnType<typeof changePasswordSchema>>;
export type SignInInput = z.input<typeof signInSchema>;
