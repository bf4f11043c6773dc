/**
 * The one email normalizer: every path that stores, looks up or compares an email uses it.
 * Trimmed, Unicode NFC, lower-cased: one address, one spelling, one row per realm.
 */
export function normalizeEmail(raw: string): string {
  return raw.trim().normalize('NFC').toLowerCase();
}

export const EMAIL_MAX_LENGTH = 254;
/** RFC 5321 §4.5.3.1.1: the part before the @ holds at most 64 octets. */
export const EMAIL_LOCAL_MAX_OCTETS = 64;
