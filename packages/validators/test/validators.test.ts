import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORDS } from '../src/common-passwords.generated.js';
import {
  isCommonPassword,
  isTooSimilar,
  LOCALES,
  message,
  normalizeEmail,
  passwordLength,
  passwordStrength,
  pickLocale,
  registerSchema,
  toFieldErrors,
  DEFAULT_POLICY,
} from '../src/index.js';

describe('the common password list', () => {
  it('is the zxcvbn-ts list (8+ characters), at least 10,000 entries, and up to date with the package', () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('@zxcvbn-ts/language-common/package.json'));
    const source: string[] = JSON.parse(readFileSync(join(dir, 'src/passwords.json'), 'utf8'));
    const expected = [...new Set(source.map((p) => p.normalize('NFKC').toLowerCase()).filter((p) => [...p].length >= 8))];
    const entries = COMMON_PASSWORDS.split('\n');
    expect(entries).toEqual(expected);
    expect(entries.length).toBeGreaterThanOrEqual(10_000);
  });

  it('matches regardless of case and Unicode form', () => {
    expect(isCommonPassword('PassWord1234')).toBe(true);
    expect(isCommonPassword('ｐａｓｓｗｏｒｄ１２３４')).toBe(true); // fullwidth forms fold under NFKC
    expect(isCommonPassword('violet tractor sings at midnight')).toBe(false);
  });
});

describe('rules', () => {
  it('normalizes emails one way: trimmed, NFC, lower-case', () => {
    expect(normalizeEmail('  Ann.Smith@Example.COM\t')).toBe('ann.smith@example.com');
  });

  it('counts password length in code points after NFKC', () => {
    expect(passwordLength('🦊🦊🦊')).toBe(3);
    expect(passwordLength('e\u0301')).toBe(1);
  });

  it('finds context words of four or more characters in either direction', () => {
    expect(isTooSimilar('all about marguerite now', { name: 'Marguerite Duras' })).toBe(true);
    expect(isTooSimilar('something else entirely', { name: 'Al Bo', email: 'al@x.io' })).toBe(false);
    expect(isTooSimilar('acmecorp', { realm: 'acmecorp-europe' })).toBe(true);
  });

  it('scores strength with the same checks as the server', () => {
    const s = passwordStrength('passwordpassword', DEFAULT_POLICY, {});
    expect(s.passed).toEqual({ length: true, not_common: false, not_similar: true });
    expect(s.acceptable).toBe(false);
    const good = passwordStrength('violet tractor sings at midnight over the bay', DEFAULT_POLICY, {});
    expect(good.acceptable).toBe(true);
    expect(good.score).toBeGreaterThanOrEqual(3);
    const parsed = registerSchema().safeParse({ name: 'A', email: 'a@b.co', password: 'passwordpassword', password2: 'passwordpassword' });
    expect(parsed.success).toBe(false);
  });
});

describe('messages', () => {
  it('has every code in every locale and fills parameters', () => {
    for (const l of LOCALES) expect(message('password_too_short', l, { min: 15 })).toMatch(/15/);
    const r = registerSchema().safeParse({});
    expect(r.success).toBe(false);
    if (!r.success) expect(toFieldErrors(r.error, 'de')[0]).toEqual({ field: 'name', code: 'required', message: 'Dieses Feld ist erforderlich.' });
  });

  it('picks the first supported language from a preference list', () => {
    expect(pickLocale(['ja-JP', 'fr-CA', 'de'])).toBe('fr');
    expect(pickLocale(['ja'])).toBe('en');
  });
});

describe('field errors across languages', () => {
  it('carries the message parameters, so a client re-renders the same words in its language', async () => {
    const { localizeFieldErrors } = await import('../src/index.js');
    const r = registerSchema().safeParse({ name: 'A', email: 'a@b.co', password: 'short', password2: 'short' });
    expect(r.success).toBe(false);
    if (r.success) return;
    const [en] = toFieldErrors(r.error, 'en');
    expect(en).toEqual({ field: 'password', code: 'password_too_short', message: 'Use at least 15 characters.', params: { min: 15 } });
    expect(localizeFieldErrors([en!], 'fr')[0]!.message).toBe('Utilisez au moins 15 caractères.');
  });
});
