import { ProblemError } from '@accounts/api';
import { parse } from 'fast-querystring';

const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Parses an application/x-www-form-urlencoded body, refusing (400 invalid_body) what cannot be
 * read faithfully: bytes that are not UTF-8 (they arrive as U+FFFD), a stray "%", or
 * percent-escapes that do not decode to UTF-8. A lenient parser would pass such garbage
 * on as a password.
 */
export function parseFormBody(body: string): Record<string, string | string[]> {
  if (body.includes('\uFFFD') || BAD_ESCAPE.test(body)) throw new ProblemError('invalid_body');
  for (const part of body.split('&')) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new ProblemError('invalid_body');
    }
  }
  return parse(body) as Record<string, string | string[]>;
}
