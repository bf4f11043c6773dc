import type { z } from 'zod';
import { isMessageCode, message, type Locale, type MessageCode } from './messages.js';

export interface FieldError {
  field: string;
  code: MessageCode;
  message: string;
  /** Values the message was filled with (e.g. { min: 15 }), so a client can re-render it in its own language. */
  params?: Record<string, unknown>;
}

/** Turns zod issues into the public field-error list: one entry per field, first error wins. */
export function toFieldErrors(error: z.ZodError, locale: Locale): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.') || 'body';
    if (seen.has(field)) continue;
    const code: MessageCode = isMessageCode(issue.message) ? issue.message : 'invalid_type';
    const params = 'params' in issue ? (issue.params as Record<string, unknown> | undefined) : undefined;
    const error: FieldError = { field, code, message: message(code, locale, params) };
    if (params && Object.keys(params).length) error.params = params;
    seen.set(field, error);
  }
  return [...seen.values()];
}

/** Re-renders server-sent field errors in another locale (the codes never change). */
export function localizeFieldErrors(
  errors: readonly { field: string; code: string; params?: Record<string, unknown> }[],
  locale: Locale,
): FieldError[] {
  return errors.map(({ field, code, params }) => {
    const c: MessageCode = isMessageCode(code) ? code : 'invalid_type';
    return params
      ? { field, code: c, message: message(c, locale, params), params }
      : { field, code: c, message: message(c, locale) };
  });
}
