import { z } from 'zod';
import { EMAIL_MAX_LENGTH, normalizeEmail } from './email.js';
import {
  DEFAULT_POLICY,
  isCommonPassword,
  isTooSimilar,
  normalizePassword,
  passwordLength,
  PASSWORD_MAX_LENGTH,
  type PasswordContext,
  type PasswordPolicy,
} from './password-policy.js';

// The one definition of each input. Issue messages are stable codes from messages.ts;
// toFieldErrors() turns them into { field, code, message } for every caller.

export const NAME_MAX_LENGTH = 150;
const CONTROL_CHARS = /[\p{Cc}\u2028\u2029]/u;
// The WHATWG "valid email address" production: what browsers accept for <input type=email>.
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const codePoints = (s: string) => [...s].length;

// A lone UTF-16 surrogate (JSON allows "\ud800") is not text: stored or hashed, it would
// silently turn into U+FFFD, so two different passwords would hash alike.
const LONE_SURROGATE = /\p{Cs}/u;

/** A string field: missing gives `required`, any other type or ill-formed text `invalid_type`. */
const text = () =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') })
    .refine((s) => !LONE_SURROGATE.test(s), { error: 'invalid_type' });

const filled = () => text().min(1, { error: 'required' });

export const nameField = text()
  .trim()
  .min(1, { error: 'required' })
  .refine((s) => codePoints(s) <= NAME_MAX_LENGTH, { error: 'name_too_long', params: { max: NAME_MAX_LENGTH } })
  .refine((s) => !CONTROL_CHARS.test(s), { error: 'name_invalid_chars' });

export const emailField = text()
  .overwrite(normalizeEmail)
  .min(1, { error: 'required' })
  .refine((s) => codePoints(s) <= EMAIL_MAX_LENGTH, { error: 'email_too_long', params: { max: EMAIL_MAX_LENGTH } })
  .regex(EMAIL_PATTERN, { error: 'invalid_email' });

/** A new password: length rules only; the rules that need other fields run on the object. */
export const newPasswordField = (policy: PasswordPolicy) =>
  filled()
    .refine((p) => passwordLength(p) >= policy.minLength, { error: 'password_too_short', params: { min: policy.minLength } })
    .refine((p) => passwordLength(p) <= PASSWORD_MAX_LENGTH, { error: 'password_too_long', params: { max: PASSWORD_MAX_LENGTH } });

/** An existing password is only compared, never judged; the cap keeps hashing bounded. */
export const currentPasswordField = filled().refine((p) => codePoints(p) <= PASSWORD_MAX_LENGTH * 4, {
  error: 'password_incorrect',
});

type Ctx = z.RefinementCtx;

function checkNewPassword(password: string, context: PasswordContext, field: string, ctx: Ctx) {
  if (isCommonPassword(password)) ctx.addIssue({ code: 'custom', path: [field], message: 'password_too_common' });
  else if (isTooSimilar(password, context)) ctx.addIssue({ code: 'custom', path: [field], message: 'password_too_similar' });
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
}

export const registerSchema = ({ policy = DEFAULT_POLICY, realm }: RegisterOptions = {}) =>
  z
    .object({ name: nameField, email: emailField, password: newPasswordField(policy), password2: filled() })
    .superRefine((v, ctx) => {
      if (isText(v.password)) checkNewPassword(v.password, { name: textOr(v.name), email: textOr(v.email), realm }, 'password', ctx);
      if (isText(v.password) && isText(v.password2) && !same(v.password, v.password2))
        ctx.addIssue({ code: 'custom', path: ['password2'], message: 'password_mismatch' });
    }, runEvenWithFieldErrors);

export interface ChangePasswordOptions {
  policy?: PasswordPolicy;
  /** The account's own name, email and realm, which the new password may not resemble. */
  context?: PasswordContext;
}

export const changePasswordSchema = ({ policy = DEFAULT_POLICY, context = {} }: ChangePasswordOptions = {}) =>
  z
    .object({
      current_password: currentPasswordField,
      new_password: newPasswordField(policy),
      confirm_password: filled(),
    })
    .superRefine((v, ctx) => {
      if (isText(v.new_password)) checkNewPassword(v.new_password, context, 'new_password', ctx);
      if (isText(v.new_password) && isText(v.current_password) && same(v.new_password, v.current_password))
        ctx.addIssue({ code: 'custom', path: ['new_password'], message: 'password_unchanged' });
      if (isText(v.new_password) && isText(v.confirm_password) && !same(v.new_password, v.confirm_password))
        ctx.addIssue({ code: 'custom', path: ['confirm_password'], message: 'password_mismatch' });
    }, runEvenWithFieldErrors);

export const signInSchema = z.object({ email: emailField, password: currentPasswordField });

export type RegisterInput = z.input<ReturnType<typeof registerSchema>>;
export type ChangePasswordInput = z.input<ReturnType<typeof changePasswordSchema>>;
export type SignInInput = z.input<typeof signInSchema>;
