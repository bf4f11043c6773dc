/**
 * PostgreSQL SQLSTATE of an error from either driver (drizzle wraps driver errors in `cause`).
 * Every SQLSTATE has a digit; five-letter socket errors such as EPIPE are not one.
 */
export function sqlState(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'string' && /^(?=.*\d)[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === '23505';

/** True when the error means the database cannot be reached right now (not a bad query). */
export function isUnavailable(err: unknown): boolean {
  const state = sqlState(err);
  if (state) return /^(08|53|57P0[1-3])/.test(state);
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (
      typeof e.code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|CONNECT_TIMEOUT|CONNECTION_.*)$/.test(e.code)
    )
      return true;
  }
  return false;
}
