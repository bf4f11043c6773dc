import { z } from 'zod';
import { currentPasswordField } from './schemas.js';

// Inputs of two-step sign-in: an authenticator app's six-digit code (RFC 6238) or a single-use
// recovery code, wherever a second step is asked for.

/** The ways a second step can be done, as `second_factor_required` and the account's status list them. */
export const SECOND_STEP_METHODS = ['passkey', 'totp', 'recovery_code'] as const;
export type SecondStepMethod = (typeof SECOND_STEP_METHODS)[number];

/** A recovery code's characters: Crockford's base32 (no i, l, o, u), 5 bits each. */
export const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Ten characters, 50 bits, shown as two groups of five: `xxxxx-xxxxx`. */
export const RECOVERY_CODE_LENGTH = 10;
export const RECOVERY_CODE_COUNT = 10;

const text = () =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') });

/** Spaces and dashes are how people copy codes; they carry nothing. */
const compact = (s: string) => s.replace(/[\s-]+/g, '').toLowerCase();

/**
 * A recovery code as typed, in its one stored form: lower case, no separators, with the letters
 * Crockford's base32 reads as digits (o → 0, i and l → 1). Null when it cannot be one.
 */
export function normalizeRecoveryCode(input: string): string | null {
  const s = compact(input).replace(/o/g, '0').replace(/[il]/g, '1');
  if (s.length !== RECOVERY_CODE_LENGTH) return null;
  for (const ch of s) if (!RECOVERY_ALPHABET.includes(ch)) return null;
  return s;
}

/** How a recovery code is shown: `abcde-fghjk`. */
export const formatRecoveryCode = (code: string) => `${code.slice(0, 5)}-${code.slice(5)}`;

const TOTP_CODE = /^\d{6}$/;

/** An authenticator app's code: six digits (spaces between them allowed, as apps show them). */
export const totpCodeField = text()
  .overwrite(compact)
  .min(1, { error: 'required' })
  .regex(TOTP_CODE, { error: 'totp_code_format' });

/** What proves the second step: an app's six digits, or a recovery code. */
export type SecondStepCode = { kind: 'totp'; code: string } | { kind: 'recovery'; code: string };

/** A second-step code: six digits, or a recovery code (`xxxxx-xxxxx`). */
export const secondStepCodeField = text()
  .min(1, { error: 'required' })
  .max(64, { error: 'second_step_code_format' })
  .transform((s, ctx): SecondStepCode => {
    const digits = compact(s);
    if (TOTP_CODE.test(digits)) return { kind: 'totp', code: digits };
    const recovery = normalizeRecoveryCode(s);
    if (recovery) return { kind: 'recovery', code: recovery };
    ctx.addIssue({ code: 'custom', message: 'second_step_code_format' });
    return z.NEVER;
  });

/** One of the account's recovery codes (`xxxxx-xxxxx`), where an app's code cannot be one. */
export const recoveryCodeField = text()
  .min(1, { error: 'required' })
  .max(64, { error: 'recovery_code_format' })
  .transform((s, ctx): SecondStepCode => {
    const recovery = normalizeRecoveryCode(s);
    if (recovery) return { kind: 'recovery', code: recovery };
    ctx.addIssue({ code: 'custom', message: 'recovery_code_format' });
    return z.NEVER;
  });

/**
 * Turning the authenticator app on: a code it shows for the pending secret, and the password. An
 * account already on through passkeys binds it with a second factor too: the session's, proved in
 * the last five minutes, or one of its recovery codes (`recovery_code`; else 422
 * `second_factor_recheck_required` on it).
 */
export const enableTotpSchema = z.object({
  code: totpCodeField,
  current_password: currentPasswordField,
  recovery_code: recoveryCodeField.optional(),
});

/** Turning two-step sign-in off: the password and a current code or a recovery code. */
export const disableTotpSchema = z.object({ current_password: currentPasswordField, code: secondStepCodeField });

/**
 * New recovery codes (the old ones stop working): the password, and a second factor: the
 * session's, proved in the last five minutes, or `code` (else 422 `second_factor_recheck_required`
 * on it).
 */
export const regenerateRecoveryCodesSchema = z.object({
  current_password: currentPasswordField,
  code: secondStepCodeField.optional(),
});

/**
 * The second step of a sign-in: the code, and the pending sign-in the password step handed out
 * (a browser sends it as a cookie; a program as `pending_token`).
 */
export const secondStepSchema = z.object({
  code: secondStepCodeField,
  pending_token: text().max(200, { error: 'invalid_type' }).optional(),
});

export type EnableTotpInput = z.input<typeof enableTotpSchema>;
export type DisableTotpInput = z.input<typeof disableTotpSchema>;
export type RegenerateRecoveryCodesInput = z.input<typeof regenerateRecoveryCodesSchema>;
export type SecondStepInput = z.input<typeof secondStepSchema>;
