// Every language, as the server has them.
import '../src/all-messages.js';
import { describe, expect, it } from 'vitest';
import {
  LOCALES,
  MESSAGE_CODES,
  message,
  normalizeEmail,
  pickLocale,
  registerSchema,
  toFieldErrors,
  localizeFieldErrors,
  type Locale,
  type MessageCode,
} from '../src/index.js';

describe('rules', () => {
  it('normalizes emails one way: trimmed, NFC, lower-case', () => {
    expect(normalizeEmail('  Ann.Smith@Example.COM\t')).toBe('ann.smith@example.com');
  });
});

describe('messages', () => {
  it('has every code in every locale, with the same parameters, and fills them', () => {
    // Parameters that render as their own placeholder, to read which ones a message uses.
    const asPlaceholders = new Proxy({}, { get: (_, key) => `{${String(key)}}` }) as Record<string, unknown>;
    const placeholders = (code: MessageCode, l: Locale) =>
      [...message(code, l, asPlaceholders).matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
    expect(MESSAGE_CODES).toContain('password_too_short');
    for (const code of MESSAGE_CODES) {
      const names = placeholders(code, 'en');
      for (const l of LOCALES) {
        expect(message(code, l).trim(), `${code} in ${l}`).not.toBe('');
        expect(placeholders(code, l), `${code} in ${l}`).toEqual(names);
        const filled = message(code, l, Object.fromEntries(names.map((n) => [n, 4242])));
        expect(filled, `${code} in ${l}`).not.toMatch(/\{\w+\}/);
        if (names.length) expect(filled, `${code} in ${l}`).toContain('4242');
      }
    }
    expect(placeholders('password_too_short', 'de')).toEqual(['min']);
    const r = registerSchema({ estimator: null }).safeParse({});
    expect(r.success).toBe(false);
    if (!r.success)
      expect(toFieldErrors(r.error, 'de')[0]).toEqual({
        field: 'name',
        code: 'required',
        message: 'Dieses Feld ist erforderlich.',
      });
  });

  it('names the media type a JSON-only route takes, in every locale', () => {
    for (const l of LOCALES) expect(message('unsupported_media_type_json', l)).toMatch(/application\/json/);
  });

  it('picks the first supported language from a preference list', () => {
    expect(pickLocale(['ja-JP', 'fr-CA', 'de'])).toBe('fr');
    expect(pickLocale(['ja'])).toBe('en');
  });
});

describe('field errors across languages', () => {
  it('carries the message parameters, so a client re-renders the same words in its language', () => {
    const r = registerSchema({ estimator: null }).safeParse({
      name: 'A',
      email: 'a@b.co',
      password: 'short',
      password2: 'short',
    });
    expect(r.success).toBe(false);
    if (r.success) return;
    const [en] = toFieldErrors(r.error, 'en');
    expect(en).toEqual({
      field: 'password',
      code: 'password_too_short',
      message: 'Use at least 15 characters.',
      params: { min: 15 },
    });
    expect(localizeFieldErrors([en!], 'fr')[0]!.message).toBe('Utilisez au moins 15 caractères.');
  });
});
