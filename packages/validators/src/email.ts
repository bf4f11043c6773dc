/**
 * The one email normalizer: every path that stores, looks up or compares an email uses it.
 * Trimmed, Unicode NFC, lower-cased: one address, one spelling, one row per realm.
 */
export function normalizeEmail(raw: string): string {
  return raw.trim().normalize('NFC').toLowerCase();
}

export const EMAIL_MAX_LENGTH = 254;
