import { z } from 'zod';
import { currentPasswordField, emailField, knownEmailField, newPasswordField } from './schemas.js';
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

// Inputs of the flows that start from a mailed link: forgotten password, reset, address verification,
// change of address.

const LONE_SURROGATE = /\p{Cs}/u;
const filled = () =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') })
    .refine((s) => !LONE_SURROGATE.test(s), { error: 'invalid_type' })
    .min(1, { error: 'required' });

/** Longer than any token the service issues: refused without a lookup, with the flow's own code. */
const TOKEN_MAX = 256;
const tokenField = (invalid: 'reset_token_invalid' | 'verify_token_invalid' | 'email_change_token_invalid') =>
  filled().refine((s) => s.length <= TOKEN_MAX, { error: invalid });

export const forgotPasswordSchema = z.object({ email: knownEmailField });

export interface ResetPasswordOptions {
  policy?: PasswordPolicy;
  context?: PasswordContext;
  /** As for registerSchema: null leaves the "easy to guess" rule to the server. */
  estimator: PasswordEstimator | null;
}

/** The same password rules and field errors as registration (new_password / confirm_password as in a change). */
export const resetPasswordSchema = ({ policy = DEFAULT_POLICY, context = {}, estimator }: ResetPasswordOptions) =>
  z
    .object({
      token: tokenField('reset_token_invalid'),
      new_password: newPasswordField(policy),
      confirm_password: filled(),
    })
    .superRefine(
      (v, ctx) => {
        const p = typeof v.new_password === 'string' && v.new_password.length > 0 ? v.new_password : null;
        const length = p ? passwordLength(p) : 0;
        if (p && estimator && length >= policy.minLength && length <= PASSWORD_MAX_LENGTH) {
          const verdict = judgePassword(p, context, estimator);
          if (verdict !== 'ok') ctx.addIssue({ code: 'custom', path: ['new_password'], message: verdict });
        }
        const c = typeof v.confirm_password === 'string' && v.confirm_password.length > 0 ? v.confirm_password : null;
        if (p && c && normalizePassword(p) !== normalizePassword(c))
          ctx.addIssue({ code: 'custom', path: ['confirm_password'], message: 'password_mismatch' });
      },
      { when: (p) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value) },
    );

export const verifyEmailSchema = z.object({ token: tokenField('verify_token_invalid') });

/** Moving the account to another address: normalized and checked as at registration, and the password. */
export const changeEmailSchema = z.object({ new_email: emailField, current_password: currentPasswordField });

/** The token of the link mailed to the new address. */
export const confirmEmailChangeSchema = z.object({ token: tokenField('email_change_token_invalid') });

/** The mailed links whose token can be checked before it is used: the page each opens asks first. */
export const LINK_PURPOSES = ['reset_password', 'verify_email', 'change_email'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/**
 * A mailed link's token and what it was mailed for, checked without using it up (an overlong
 * token is `unknown`, answered without a lookup, never a refusal: a link is only ever in a state).
 */
export const checkLinkSchema = z.object({
  purpose: z.enum(LINK_PURPOSES, { error: (iss) => (iss.input === undefined ? 'required' : 'invalid_type') }),
  token: filled(),
});

export type CheckLinkInput = z.input<typeof checkLinkSchema>;
export type ChangeEmailInput = z.input<typeof changeEmailSchema>;
export type ConfirmEmailChangeInput = z.input<typeof confirmEmailChangeSchema>;
export type ForgotPasswordInput = z.input<typeof forgotPasswordSchema>;
export type ResetPasswordInput = z.input<ReturnType<typeof resetPasswordSchema>>;
export type VerifyEmailInput = z.input<typeof verifyEmailSchema>;
