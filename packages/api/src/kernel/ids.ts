const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A row's id as a client sent it (a session's, a passkey's), lower-cased, or null when it cannot
 * be one: malformed, unknown and another account's ids get one answer, without a query for the first.
 */
export function rowId(id: string): string | null {
  const s = id.trim().toLowerCase();
  return UUID.test(s) ? s : null;
}
