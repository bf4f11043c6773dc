import { isMessageCode, localizeFieldErrors, message, type FieldError, type Locale } from '@accounts/validators';
import { translate } from './i18n';
import { problemOf } from './trpc';

/** What a failed call means for the page: errors to put next to fields, and/or a sentence. */
export interface Failure {
  fieldErrors: FieldError[];
  /** A readable explanation with what to do next; null when the field errors say it all. */
  message: string | null;
}

export function describeFailure(error: unknown, locale: Locale): Failure {
  const problem = problemOf(error);
  // No problem body means the request never got a proper answer: offline, DNS, a proxy page.
  if (!problem) return { fieldErrors: [], message: translate(locale, 'unreachable') };

  // Field errors are re-rendered from their codes, in this page's language.
  const fieldErrors = localizeFieldErrors(problem.errors ?? [], locale);
  if (fieldErrors.length > 0) return { fieldErrors, message: null };

  const code = isMessageCode(problem.code) ? problem.code : 'internal';
  // A title that needs a wait time it was not given keeps the server's own wording.
  const needsWait = code === 'rate_limited' || code === 'too_many_attempts';
  let text = needsWait && problem.retryAfter === undefined ? problem.title : message(code, locale, { retryAfter: problem.retryAfter });
  if (problem.status >= 500 && problem.status !== 503) text += ` ${translate(locale, 'tryAgainLater')}`;
  return { fieldErrors: [], message: text };
}

export function isUnauthenticated(error: unknown) {
  return problemOf(error)?.code === 'unauthenticated';
}
