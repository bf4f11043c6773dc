import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changePasswordSchema,
  DEFAULT_POLICY,
  judgePassword,
  passwordLength,
  passwordStrength,
  passwordUserInputs,
  PASSWORD_MIN_GUESSES_LOG10,
  registerSchema,
  toFieldErrors,
  loadPasswordEstimator,
} from '../src/index.js';
import { passwordEstimator } from '../src/password-estimator.js';

const estimator = passwordEstimator();
const fieldCodes = (r: { success: boolean; error?: Parameters<typeof toFieldErrors>[0] }) =>
  r.success ? {} : Object.fromEntries(toFieldErrors(r.error!, 'en').map((e) => [e.field, e.code]));
const register = (password: string, name = 'Test User', email = 'test.user@example.com', realm = 'default') =>
  fieldCodes(registerSchema({ estimator, realm }).safeParse({ name, email, password, password2: password }));

// Long enough for the 15-character minimum, and easy to guess: each must be refused.
const EASY = [
  '123456789012345',
  'aaaaaaaaaaaaaaa',
  'qwertyuiopasdfgh',
  'abcdefghijklmnop',
  'password123456789',
  ' '.repeat(15),
  'Password12345678!',
  'iloveyouforever!',
  'football football',
  'nope nope nope nope',
  'QWERTYUIOP12345',
  'passwordpassword',
  'p@ssw0rd123456789',
  'january february march',
  'Summer2024Summer2024',
  '1qaz2wsx3edc4rfv',
  'ｐａｓｓｗｏｒｄ１２３４５６７８', // fullwidth: judged on its NFKC form
];

// Passphrases of a few unrelated words, as used across the test suites: each must pass.
const GOOD = [
  'violet tractor sings at midnight',
  'quiet harbor lanterns drifting east',
  'another brand new passphrase',
  'my default account 2026',
  'spaced out passphrase',
  'correct horse battery staple',
  'crème brûlée über café',
  'mary had a little lamb',
  'Tr0ub4dor&3xyzab',
];

describe('the password rule', () => {
  it.each(EASY)('refuses %j as too easy to guess', (password) => {
    expect(judgePassword(password, {}, estimator)).toBe('password_too_common');
    expect(register(password)).toEqual({ password: 'password_too_common' });
  });

  it.each(GOOD)('accepts %j', (password) => {
    expect(judgePassword(password, {}, estimator)).toBe('ok');
    expect(register(password)).toEqual({});
  });

  it('counts the length as typed, before NFKC: ﷺ is one character and ㌀㌁㌂㌃ four', () => {
    expect(passwordLength('ﷺ')).toBe(1);
    expect('ﷺ'.normalize('NFKC')).toHaveLength(18);
    expect(passwordLength('㌀㌁㌂㌃')).toBe(4);
    expect(passwordLength('🦊🦊🦊')).toBe(3);
    expect(passwordLength('e\u0301')).toBe(2);
    expect(register('ﷺ')).toEqual({ password: 'password_too_short' });
    expect(register('㌀㌁㌂㌃')).toEqual({ password: 'password_too_short' });
    // Fourteen typed characters that NFKC expands well past fifteen are still too short.
    expect(register('㌀㌁㌂㌃㌄㌅㌆㌇㌈㌉㌊㌋㌌㌍')).toEqual({ password: 'password_too_short' });
  });

  it("passes the estimator the person's name, email parts and realm", () => {
    expect(
      passwordUserInputs({ name: 'Rosa Parks', email: 'rosa.parks+home@example.org', realm: 'acme-europe' }),
    ).toEqual([
      'rosa parks',
      'rosa',
      'parks',
      'rosaparks',
      'rosa.parks+home@example.org',
      'rosa.parks+home',
      'home',
      'example.org',
      'example',
      'acme-europe',
      'acme',
      'europe',
    ]);
  });

  it('does not refuse a password for merely containing a word of the name, email or realm', () => {
    expect(register('rosaline tractor sings at midnight', 'Rosa Parks', 'rosa.parks@example.com')).toEqual({});
    // A random token that also appears in the email address.
    expect(register('x7kq9vbm2 lantern orbit', 'Test User', 'x7kq9vbm2@example.com')).toEqual({});
    expect(register('acme ferris wheels humming softly', 'Test User', 'a@example.com', 'acme')).toEqual({});
  });

  it('refuses a password that is weak once the name, email and realm are known', () => {
    expect(register('RosaParks19131955', 'Rosa Parks')).toEqual({ password: 'password_too_similar' });
    expect(register('zebulon.quartz@example.com', 'Z Q', 'zebulon.quartz@example.com')).toEqual({
      password: 'password_too_similar',
    });
    expect(register('gwendolyn smith europe', 'Gwendolyn Smith', 'g@example.com', 'europe')).toEqual({
      password: 'password_too_similar',
    });
    // Weak even without knowing the person: too common, whatever else it contains.
    expect(register('GwendolynSmithEurope', 'Gwendolyn Smith', 'g@example.com', 'europe')).toEqual({
      password: 'password_too_common',
    });
  });

  it('applies the same rule to a new password on change, with the account as context', () => {
    const schema = changePasswordSchema({
      estimator,
      context: { name: 'Rosa Parks', email: 'rosa@example.com', realm: 'default' },
    });
    const codes = (new_password: string) =>
      fieldCodes(schema.safeParse({ current_password: 'old one', new_password, confirm_password: new_password }));
    expect(codes('aaaaaaaaaaaaaaa')).toEqual({ new_password: 'password_too_common' });
    expect(codes('RosaParks19131955')).toEqual({ new_password: 'password_too_similar' });
    expect(codes('rosaline tractor sings at midnight')).toEqual({});
  });

  it('judges only the first 64 characters, so the work per password stays bounded', () => {
    expect(judgePassword(`${'a'.repeat(64)} violet tractor sings at midnight`, {}, estimator)).toBe(
      'password_too_common',
    );
    expect(judgePassword(`violet tractor sings at midnight ${'a'.repeat(200)}`, {}, estimator)).toBe('ok');
  });

  it('leaves the content rule to the server when no estimator is given (a browser still loading it)', () => {
    const r = registerSchema({ estimator: null }).safeParse({
      name: 'A',
      email: 'a@b.co',
      password: 'aaaaaaaaaaaaaaa',
      password2: 'aaaaaaaaaaaaaaa',
    });
    expect(r.success).toBe(true);
  });

  it('loads the same estimator lazily', async () => {
    const lazy = await loadPasswordEstimator();
    expect(lazy).toBe(estimator);
  });
});

describe('the strength meter reading', () => {
  it('is acceptable exactly when the schema accepts the password (property)', () => {
    const words = [
      'violet',
      'tractor',
      'sings',
      'at',
      'midnight',
      'password',
      '123',
      'qwerty',
      'aaaa',
      'rosa',
      'parks',
      ' ',
      '!',
      '2026',
      'x7',
      'é',
    ];
    const candidate = fc.oneof(
      fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }).map((w) => w.join('')),
      fc.string({ minLength: 0, maxLength: 40 }),
      fc.string({ unit: 'grapheme', minLength: 0, maxLength: 20 }),
    );
    const ctx = { name: 'Rosa Parks', email: 'rosa@example.com', realm: 'default' };
    const schema = registerSchema({ estimator, realm: ctx.realm });
    fc.assert(
      fc.property(candidate, (password) => {
        const parsed = schema.safeParse({ name: ctx.name, email: ctx.email, password, password2: password });
        const strength = passwordStrength(password, DEFAULT_POLICY, ctx, estimator);
        expect(strength.acceptable).toBe(parsed.success);
        // "good" (2) and above only for what the server accepts.
        expect(strength.score >= 2).toBe(parsed.success);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('marks the failed checks, and calls nothing acceptable while the estimator loads', () => {
    const weak = passwordStrength('aaaaaaaaaaaaaaa', DEFAULT_POLICY, {}, estimator);
    expect(weak).toMatchObject({
      passed: { length: true, not_common: false, not_similar: true },
      acceptable: false,
      pending: false,
    });
    const similar = passwordStrength('RosaParks19131955', DEFAULT_POLICY, { name: 'Rosa Parks' }, estimator);
    expect(similar).toMatchObject({
      passed: { length: true, not_common: true, not_similar: false },
      acceptable: false,
    });
    const good = passwordStrength('violet tractor sings at midnight over the bay', DEFAULT_POLICY, {}, estimator);
    expect(good).toMatchObject({ passed: { length: true, not_common: true, not_similar: true }, acceptable: true });
    expect(good.score).toBe(4);
    const loading = passwordStrength('violet tractor sings at midnight', DEFAULT_POLICY, {}, null);
    expect(loading).toMatchObject({ acceptable: false, pending: true, passed: { length: true } });
    expect(loading.score).toBeLessThan(2);
  });

  it('keeps the threshold where the documentation puts it', () => {
    expect(PASSWORD_MIN_GUESSES_LOG10).toBe(10);
  });
});
