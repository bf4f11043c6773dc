import { ProblemError } from '@accounts/api';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export type FormBody = Record<string, string | string[]>;

/**
 * Parses an application/x-www-form-urlencoded body in one pass over its bytes, refusing
 * (400 invalid_body) what cannot be read faithfully: bytes that are not UTF-8, a stray "%",
 * or percent-escapes that do not decode to UTF-8. A lenient parser would turn such garbage
 * into U+FFFD and pass it on as a password. A repeated name collects its values in an array.
 */
export function parseFormBody(body: Uint8Array): FormBody {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new ProblemError('invalid_body');
  }
  const form = Object.create(null) as FormBody;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const seen = form[name];
    form[name] = seen === undefined ? value : [seen, value].flat();
  }
  return form;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    throw new ProblemError('invalid_body');
  }
}
