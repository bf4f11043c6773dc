import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import {
  message,
  toFieldErrors,
  localizeFieldErrors,
  type FieldError,
  type Locale,
  type MessageCode,
} from '@accounts/validators';
import { ZodError } from 'zod';
import { isUnavailable } from '@accounts/db';
// Answers are in the request's language: every language's messages, not only English.
import '@accounts/validators/all-messages';

/** The one registry of problem codes: each has one HTTP status, on every path. */
export const PROBLEM_STATUS = {
  invalid_body: 400,
  duplicate_field: 400,
  reset_token_invalid: 400,
  verify_token_invalid: 400,
  email_change_token_invalid: 400,
  invalid_host: 400,
  passkey_challenge_invalid: 400,
  interaction_expired: 400,
  upstream_failed: 401,
  unauthenticated: 401,
  second_factor_required: 401,
  sign_in_expired: 401,
  cross_origin: 403,
  email_not_verified: 403,
  connection_recheck_required: 403,
  not_found: 404,
  realm_not_found: 404,
  provider_unknown: 404,
  method_not_allowed: 405,
  email_taken: 409,
  two_step_on: 409,
  two_step_off: 409,
  totp_not_set_up: 409,
  totp_off: 409,
  upstream_link_required: 409,
  upstream_email_unverified: 409,
  connection_taken: 409,
  connection_last_way_in: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_media_type_json: 415,
  validation_failed: 422,
  passkey_rejected: 422,
  upstream_email_missing: 422,
  rate_limited: 429,
  too_many_attempts: 429,
  too_many_codes: 429,
  headers_too_large: 431,
  internal: 500,
  server_busy: 503,
  not_ready: 503,
  origin_unknown: 503,
  upstream_unavailable: 503,
} as const satisfies Partial<Record<MessageCode, number>>;

export type ProblemCode = keyof typeof PROBLEM_STATUS;

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The tRPC code a problem status travels under on /trpc (data.code of a TRPCClientError). */
export const trpcCodeOf = (status: number): TRPC_ERROR_CODE_KEY =>
  TRPC_CODE_BY_STATUS[status] ?? 'INTERNAL_SERVER_ERROR';

const STATUS_BY_TRPC_CODE = Object.fromEntries(
  Object.entries(TRPC_CODE_BY_STATUS).map(([status, code]) => [code, Number(status)]),
) as Record<TRPC_ERROR_CODE_KEY, number>;

export interface FieldIssue {
  field: string;
  code: MessageCode;
}

/** A refusal with a stable problem code; its message is rendered per locale when it leaves. */
export class ProblemError extends TRPCError {
  constructor(
    readonly problem: ProblemCode,
    readonly extra: {
      fields?: FieldIssue[];
      zod?: ZodError;
      retryAfter?: number;
      /** second_factor_required: the ways the second step can be done, and a program's pending sign-in. */
      methods?: string[];
      pendingToken?: string;
      /** A failed second step: the tries left on this sign-in, once few remain. */
      attemptsLeft?: number;
      /** An upstream sign-in that goes on at the sign-in page (its second step, a link): where it leads afterwards. */
      next?: string;
    } = {},
  ) {
    super({ code: trpcCodeOf(PROBLEM_STATUS[problem]), message: problem });
  }
}

/** Not ready to serve (the database is unreachable, or the process is stopping): 503, retry in 5 s. */
export const notReady = () => new ProblemError('not_ready', { retryAfter: 5 });

/** The one decision that an error means the database is out of reach, and what to answer then. */
export const outageProblem = (err: unknown): ProblemError | null => (isUnavailable(err) ? notReady() : null);

/** Over a limit on calls (per address, per account, or an address's mail cap): 429 with when to try again. */
export const rateLimited = (retryAfter: number) => new ProblemError('rate_limited', { retryAfter });

export const fieldProblem = (field: string, code: MessageCode, problem: ProblemCode = 'validation_failed') =>
  new ProblemError(problem, { fields: [{ field, code }] });

/** The RFC 9457 body every error leaves with, over the form routes and tRPC alike. */
export interface Problem {
  type: 'about:blank';
  status: number;
  title: string;
  code: ProblemCode;
  detail?: string;
  /** One per field: its code, the message in the request's language, and the values it was filled with. */
  errors?: FieldError[];
  retryAfter?: number;
  /** second_factor_required: the ways the second step can be done ("totp", "recovery_code"). */
  methods?: string[];
  /** second_factor_required, for a client that takes its tokens in the body: what it sends as `pending_token`. */
  pendingToken?: string;
  /** A failed second step (`code_incorrect`, `passkey_rejected`): tries left before the sign-in ends, once 2 or fewer remain. */
  attemptsLeft?: number;
  /** An upstream sign-in that goes on at the sign-in page (its second step, a link): the path it leads to afterwards. */
  next?: string;
}

/** What an error is underneath: the ProblemError a procedure threw, when tRPC wrapped one. */
const refusalOf = (err: unknown) => (err instanceof TRPCError && err.cause instanceof ProblemError ? err.cause : err);

/**
 * The problem code an error leaves with, as toProblem decides it, without writing the problem out
 * (its title and field messages): what the observer and the refusal log need of a /trpc error,
 * whose problem the router's error formatter writes once.
 */
export function problemCodeOf(err: unknown): ProblemCode {
  const e = refusalOf(err);
  if (e instanceof ProblemError) return e.problem;
  // tRPC's own refusals (unknown procedure, wrong method, unparsable JSON) keep their status.
  if (e instanceof TRPCError)
    return e.cause instanceof ZodError ? 'validation_failed' : problemForStatus(STATUS_BY_TRPC_CODE[e.code] ?? 500);
  return 'internal';
}

export function toProblem(err: unknown, locale: Locale): Problem {
  const e = refusalOf(err);
  const code = problemCodeOf(e);
  let errors: Problem['errors'];
  let retryAfter: number | undefined;
  let secondStep: Pick<Problem, 'methods' | 'pendingToken' | 'attemptsLeft' | 'next'> = {};
  if (e instanceof ProblemError) {
    const { methods, pendingToken, attemptsLeft, next } = e.extra;
    secondStep = { methods, pendingToken, attemptsLeft, next };
    retryAfter = e.extra.retryAfter;
    if (e.extra.zod) errors = toFieldErrors(e.extra.zod, locale);
    else if (e.extra.fields) errors = localizeFieldErrors(e.extra.fields, locale);
  } else if (e instanceof TRPCError && e.cause instanceof ZodError) {
    errors = toFieldErrors(e.cause, locale);
  }
  const status = PROBLEM_STATUS[code];
  const params = { retryAfter };
  const problem: Problem = { type: 'about:blank', status, title: message(code, locale, params), code };
  if (errors) problem.errors = errors;
  if (retryAfter !== undefined) problem.retryAfter = retryAfter;
  if (secondStep.methods) problem.methods = secondStep.methods;
  if (secondStep.pendingToken) problem.pendingToken = secondStep.pendingToken;
  if (secondStep.attemptsLeft !== undefined) problem.attemptsLeft = secondStep.attemptsLeft;
  if (secondStep.next) problem.next = secondStep.next;
  return problem;
}

/** The problem code for an HTTP status from a framework or plugin error ('internal' when none fits). */
export function problemForStatus(status: number): ProblemCode {
  switch (status) {
    case 400:
      return 'invalid_body';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'cross_origin';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 503:
      return 'not_ready';
    default:
      return 'internal';
  }
}
