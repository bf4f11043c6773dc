// Every language, as the server has them.
import '../src/all-messages.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forgotPasswordSchema } from '../src/account-links.js';
import { emailField, NAME_MAX_LENGTH, nameField, signInSchema, toFieldErrors } from '../src/index.js';

// The name and email fields share one schema type, so either is a `typeof nameField`.
const codeOf = (schema: typeof nameField, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? null : toFieldErrors(r.error, 'en')[0]!.code;
};

describe('names (after the PRECIS Nickname profile, RFC 8266)', () => {
  it.each([
    ['Ada Lovelace'],
    ['Nguyễn Văn Anh'],
    ['Zoë'],
    ['Ḥannah'],
    ['李小龍'],
    ['ক্ষিতি'], // Bengali conjunct with virama
    ['བསྒྲུབས'], // Tibetan stack: three marks in a row
    ['فاطمة'],
    ['שָׁלוֹם'],
    ['Ana 👩‍💻'], // emoji joined with ZWJ
    ['❤️ Kim'], // emoji with a variation selector
    ['O’Brien-Smith'],
  ])('accepts %j', (name) => {
    expect(codeOf(nameField, name)).toBeNull();
  });

  it.each([
    ['\u200b', 'zero-width space only'],
    ['\u3164', 'Hangul filler only'],
    ['\u3164\u3164 \u115f', 'Hangul fillers'],
    ['Ann\u200bSmith', 'zero-width space inside'],
    ['\u00adAnn', 'soft hyphen'],
    ['Ann\u202eevil', 'right-to-left override'],
    ['Ann\u2066x\u2069', 'isolates'],
    ['\u200fAnn', 'right-to-left mark'],
    ['Ann\u200e', 'left-to-right mark'],
    ['\ufeffAnn', 'byte order mark'],
    ['Ann\u2060Smith', 'word joiner'],
    ['Ann\ue000', 'private use'],
    ['Ann\u0007', 'control'],
    ['Ann\nSmith', 'line break'],
    ['\u200d', 'lone joiner'],
    ['\ufe0f', 'lone variation selector'],
    ['\u0301Ann', 'mark without a base'],
  ])('refuses %j (%s) as invalid characters', (name) => {
    expect(codeOf(nameField, name)).toBe('name_invalid_chars');
  });

  it('refuses names that are only spaces, of any kind', () => {
    expect(codeOf(nameField, ' \u00a0\u3000\u2003 ')).toBe('required');
  });

  it('refuses runs of more than five combining marks (stacked "Zalgo" text)', () => {
    expect(codeOf(nameField, `Ann${'\u0301'.repeat(5)}`)).toBeNull();
    expect(codeOf(nameField, `Ann${'\u0316\u0350\u0362\u036b\u0353\u0354'}`)).toBe('name_combining_marks');
    const r = nameField.safeParse(`Z${'\u0300'.repeat(40)}algo`);
    expect(r.success).toBe(false);
    if (!r.success)
      expect(toFieldErrors(r.error, 'en')[0]).toMatchObject({ code: 'name_combining_marks', params: { max: 5 } });
  });

  it('counts the length in grapheme clusters, as a reader sees it', () => {
    const family = '👨‍👩‍👧‍👦'; // 7 code points, one cluster
    expect(codeOf(nameField, family.repeat(NAME_MAX_LENGTH / 2))).toBeNull();
    expect(codeOf(nameField, 'e\u0301'.repeat(NAME_MAX_LENGTH))).toBeNull();
    expect(codeOf(nameField, 'a'.repeat(NAME_MAX_LENGTH + 1))).toBe('name_too_long');
    expect(codeOf(nameField, family.repeat(NAME_MAX_LENGTH + 1))).toBe('name_too_long');
  });

  it('maps spaces, normalises with NFKC and collapses runs of spaces', () => {
    expect(nameField.parse('\u3000Ada\u00a0\u00a0 Ｌｏｖｅｌａｃｅ  ')).toBe('Ada Lovelace');
    expect(nameField.parse('Ame\u0301lie')).toBe('Amélie');
  });

  it('never lets a default-ignorable, bidi control or invisible-only name through (property)', () => {
    const ignorable = fc.constantFrom(
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u00ad',
      '\u3164',
      '\u115f',
      '\u180e',
      '\u034f',
      '\u{e0041}',
    );
    const bidi = fc.constantFrom(
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    );
    const space = fc.constantFrom(' ', '\u00a0', '\u3000', '\u2003', '\t');
    fc.assert(
      fc.property(fc.array(fc.oneof(ignorable, bidi, space), { minLength: 1, maxLength: 12 }), (parts) => {
        expect(nameField.safeParse(parts.join('')).success).toBe(false);
      }),
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }),
        fc.oneof(
          bidi,
          ignorable.filter((c) => !'\u200c\u200d'.includes(c)),
        ),
        fc.string({ maxLength: 10 }),
        (a, bad, b) => {
          expect(nameField.safeParse(`Ann${a}${bad}${b}`).success).toBe(false);
        },
      ),
    );
  });

  it('accepts any name of visible text without marks, and keeps it unchanged when already normal (property)', () => {
    const visible = fc.stringMatching(/^[A-Za-zÀ-ÿ0-9'’.-]{1,20}( [A-Za-zÀ-ÿ'’.-]{1,20}){0,3}$/);
    fc.assert(
      fc.property(visible, (name) => {
        const n = name.normalize('NFKC');
        expect(nameField.parse(n)).toBe(n);
      }),
    );
  });
});

describe('email addresses', () => {
  it('refuses a local part longer than 64 octets (RFC 5321)', () => {
    expect(codeOf(emailField, `${'a'.repeat(64)}@example.com`)).toBeNull();
    expect(codeOf(emailField, `${'a'.repeat(65)}@example.com`)).toBe('email_local_too_long');
    const r = emailField.safeParse(`${'b'.repeat(65)}@example.com`);
    if (!r.success)
      expect(toFieldErrors(r.error, 'fr')[0]).toMatchObject({
        params: { max: 64 },
        message: 'La partie avant le @ doit comporter au plus 64 caractères.',
      });
  });

  it.each([
    ['.ada@example.com'],
    ['ada.@example.com'],
    ['ada..lovelace@example.com'],
    ['..@example.com'],
    ['.@example.com'],
    ['"ada"@example.com'],
    ['"ada lovelace"@example.com'],
  ])('refuses %j: a leading, trailing or doubled dot in the local part, or a quoted one', (email) => {
    expect(codeOf(emailField, email)).toBe('invalid_email');
  });

  it('accepts single dots between the characters of a local part', () => {
    expect(emailField.parse(' Ada.B.Lovelace@Example.com ')).toBe('ada.b.lovelace@example.com');
    expect(codeOf(emailField, "o'brien.x-y+tag@example.co.uk")).toBeNull();
    const r = emailField.safeParse('ada..l@example.com');
    expect(r.success).toBe(false);
    if (!r.success)
      expect(toFieldErrors(r.error, 'de')).toEqual([
        { field: 'body', code: 'invalid_email', message: 'Geben Sie eine gültige E-Mail-Adresse ein.' },
      ]);
  });

  it('still takes such an address where an account may already have it (sign-in, forgotten password)', () => {
    expect(signInSchema.parse({ email: 'Ada..L@example.com', password: 'x' }).email).toBe('ada..l@example.com');
    expect(forgotPasswordSchema.parse({ email: '.ada@example.com' }).email).toBe('.ada@example.com');
    expect(signInSchema.safeParse({ email: 'not an address', password: 'x' }).success).toBe(false);
  });

  it('accepts exactly the local parts without a dot at either end or two together (property)', () => {
    const atom = fc.stringMatching(/^[a-z0-9+_-]{0,4}$/);
    fc.assert(
      fc.property(fc.array(atom, { minLength: 1, maxLength: 5 }), (atoms) => {
        const local = atoms.join('.');
        fc.pre(local.length > 0);
        expect(emailField.safeParse(`${local}@example.org`).success).toBe(atoms.every((a) => a.length > 0));
      }),
    );
  });

  it('accepts exactly the addresses whose local part fits (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120 }), (n) => {
        expect(emailField.safeParse(`${'x'.repeat(n)}@example.org`).success).toBe(n <= 64);
      }),
    );
  });
});
