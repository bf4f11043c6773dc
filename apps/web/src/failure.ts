import { isMessageCode, localizeFieldErrors, message, type FieldError, type Locale } from '@accounts/validators';
import { TRPCClientError } from '@trpc/client';
import { translate } from './i18n';
import { problemOf } from './trpc';

/** What a failed call means for the page: errors to put next to fields, and/or a sentence. */
export interface Failure {
  fieldErrors: FieldError[];
  /** A readable explanation with what to do next; null when the field errors say it all. */
  message: string | null;
}

/** Field error codes that are about the form as a whole: which of email and password is wrong is not said. */
const FORM_LEVEL_CODES = new Set(['credentials_invalid']);

/**
 * No request left the browser, or no answer came back: fetch rejects with a TypeError. Anything
 * else without a problem body was an answer, just not ours (a proxy's error page): the fault is
 * on the service's side, not the person's connection.
 */
function neverAnswered(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return error instanceof TRPCClientError && error.cause instanceof TypeError;
}

/**
 * A failure already put in words for the person, not an answer of the service (the browser's
 * passkey prompt failed, say): shown as it is.
 */
export class WordedError extends Error {}

export function describeFailure(error: unknown, locale: Locale): Failure {
  if (error instanceof WordedError) return { fieldErrors: [], message: error.message };
  const problem = problemOf(error);
  if (!problem)
    return { fieldErrors: [], message: translate(locale, neverAnswered(error) ? 'unreachable' : 'serverTrouble') };

  // Field errors are re-rendered from their codes, in this page's language.
  const all = localizeFieldErrors(problem.errors ?? [], locale);
  const fieldErrors = all.filter((e) => !FORM_LEVEL_CODES.has(e.code));
  const formLevel = all.filter((e) => FORM_LEVEL_CODES.has(e.code)).map((e) => e.message);
  if (all.length > 0) return { fieldErrors, message: formLevel.length > 0 ? formLevel.join(' ') : null };

  const code = isMessageCode(problem.code) ? problem.code : 'internal';
  // A title that needs a wait time it was not given keeps the server's own wording.
  const needsWait = code === 'rate_limited' || code === 'too_many_attempts';
  let text =
    needsWait && problem.retryAfter === undefined
      ? problem.title
      : message(code, locale, { retryAfter: problem.retryAfter });
  if (problem.status >= 500 && problem.status !== 503) text += ` ${translate(locale, 'tryAgainLater')}`;
  return { fieldErrors: [], message: text };
}

export function isUnauthenticated(error: unknown) {
  return problemOf(error)?.code === 'unauthenticated';
}

/**
 * The words for a refusal the gateway named in a page's address after a redirect: `?problem=`,
 * with `retry_after` (seconds) for a limit.
 */
export function problemCodeMessage(search: URLSearchParams, locale: Locale): string | null {
  const code = search.get('problem');
  if (!code) return null;
  const retryAfter = Number(search.get('retry_after')) || 60;
  return message(isMessageCode(code) ? code : 'upstream_failed', locale, { retryAfter });
}
