import fc from 'fast-check';
import { STRONG, STRONG2 } from './gateway.js';

// Generators of hostile request parts for the property tests. Each value is something a
// client can really send; the service must refuse it cleanly or accept it correctly.

let serial = 0;
/** A fresh, valid address each time it is drawn (so 201s are possible and never collide). */
export const freshEmail = () => fc.constant(null).map(() => `fuzz.${process.pid}.${serial++}@example.com`);

const controlChars = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r\n',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u200b',
  '\ufeff',
  '\ufffd',
);
const combining = fc.constantFrom(
  'e\u0301',
  'a\u0308\u0308\u0308',
  'Z\u0351\u0352\u0357\u0358\u035b',
  '\u0301',
  'ﬃ',
  'Å',
  '\u212A',
);
const emoji = fc.constantFrom('👩‍👩‍👧‍👦', '🏳️‍🌈', '😀', '🇩🇪', '\u{1F9D1}\u{1F3FD}\u200D\u{1F680}');
const loneSurrogate = fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\ude00b');

/** Text of any shape: printable, any code point, control characters, marks, emoji, lone surrogates. */
export const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc
    .array(fc.oneof(controlChars, combining, emoji, loneSurrogate, fc.string({ maxLength: 4 })), { maxLength: 12 })
    .map((a) => a.join('')),
  fc.integer({ min: 256, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

const longEmail = fc.integer({ min: 200, max: 3000 }).map((n) => `${'a'.repeat(n)}@example.com`);
const longDomain = fc
  .integer({ min: 2, max: 60 })
  .map((n) => `a@${Array.from({ length: n }, () => 'b'.repeat(63)).join('.')}.com`);
const oddEmail = fc.constantFrom(
  ' Upper.Case@Example.COM ',
  'a@b',
  '@example.com',
  'a@@example.com',
  'a@example..com',
  'a b@example.com',
  'é@example.com',
  '\u212Aate@example.com',
  'a@xn--nxasmq6b.com',
  'a@-example.com',
  `a@${'a'.repeat(64)}.com`,
  'a\u0000@example.com',
);

export const hostileEmail = fc.oneof(freshEmail(), longEmail, longDomain, oddEmail, hostileText);
export const hostilePassword = fc.oneof(
  fc.constantFrom(STRONG, STRONG2, 'password', 'password123456789', 'short', ''),
  hostileText,
  fc.integer({ min: 200, max: 1100 }).map((n) => 'p'.repeat(n)),
);

/** A value for a named field, biased towards what the field expects. */
export function valueFor(field: string): fc.Arbitrary<string> {
  if (field === 'email') return hostileEmail;
  if (/password/.test(field)) return hostilePassword;
  if (field === 'name') return fc.oneof(fc.constant('Test User'), hostileText);
  return hostileText;
}

export type Pair = [string, string];

/** Fields of a form: the route's own (some missing), repeats, unknown and empty names. */
export function formFields(fields: readonly string[]): fc.Arbitrary<Pair[]> {
  const known = fields.length ? fc.constantFrom(...fields) : fc.constant('x');
  const name = fc.oneof(
    { weight: 6, arbitrary: known },
    { weight: 1, arbitrary: fc.constantFrom('', 'extra', '__proto__', 'constructor', 'email[]', 'a=b', 'role') },
    { weight: 1, arbitrary: hostileText },
  );
  const pair = name.chain((n) => valueFor(n).map((v): Pair => [n, v]));
  // Either every field once (the shape of a real submission) or an arbitrary list.
  const complete = fc.tuple(...(fields.length ? fields : ['x']).map((f) => valueFor(f).map((v): Pair => [f, v])));
  return fc.oneof(complete, fc.array(pair, { maxLength: 8 }));
}

const rawEncode = (s: string) => s;
const safeEncode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // a lone surrogate cannot be percent-encoded; send it as it is
  }
};
const plusEncode = (s: string) => safeEncode(s).replace(/%20/g, '+');

/** How a client may encode a form: by the book, with "+" for spaces, or not at all. */
export const encoder = fc.constantFrom(safeEncode, plusEncode, rawEncode);
export const encodeForm = (pairs: Pair[], enc: (s: string) => string = safeEncode) =>
  pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');

/**
 * A real submission (from `valid`, read when the value is drawn) with at most one field
 * spoiled by a hostile value, sometimes plus an unknown field, so the generated traffic
 * also reaches the success paths.
 */
export function nearlyValid(valid: () => Pair[]): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.nat(9), hostileText, fc.constantFrom(safeEncode, plusEncode), fc.boolean())
    .map(([spoil, bad, enc, extra]) => {
      const pairs = valid();
      if (spoil < pairs.length) pairs[spoil]![1] = bad;
      if (extra) pairs.push(['extra', bad]);
      return Buffer.from(encodeForm(pairs, enc));
    });
}

const brokenEscape = fc.constantFrom(
  '%',
  '%G1',
  '%C3%28',
  '%ED%A0%80',
  '%FF',
  '%E2%82',
  '%C0%AF',
  '%00',
  '%25',
  '%2',
  '+%2B+',
  '%F4%90%80%80',
);
const invalidUtf8 = fc.constantFrom(
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
);

/** A form body as bytes: properly or sloppily encoded, with broken escapes or invalid UTF-8 spliced in. */
export function formBody(fields: readonly string[]): fc.Arbitrary<Buffer> {
  const encoded = fc.tuple(formFields(fields), encoder).map(([pairs, enc]) => encodeForm(pairs, enc));
  const spliced = fc
    .tuple(
      encoded,
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.oneof(
            brokenEscape.map((s) => Buffer.from(s)),
            invalidUtf8,
          ),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([body, cuts]) => {
      let buf = Buffer.from(body);
      for (const [at, bytes] of cuts) {
        const i = buf.length ? at % (buf.length + 1) : 0;
        buf = Buffer.concat([buf.subarray(0, i), bytes, buf.subarray(i)]);
      }
      return buf;
    });
  const odd = fc
    .constantFrom(
      '',
      '&',
      '&&&',
      '=',
      '==',
      'email',
      'email&password',
      '=x&=y',
      'a'.repeat(17 * 1024),
      `email=${'%41'.repeat(6000)}`,
    )
    .map((s) => Buffer.from(s));
  return fc.oneof(
    { weight: 5, arbitrary: encoded.map((s) => Buffer.from(s)) },
    { weight: 3, arbitrary: spliced },
    { weight: 1, arbitrary: odd },
  );
}

/** A JSON body: the fields as an object, other JSON values, or text that is not JSON. */
export function jsonBody(fields: readonly string[]): fc.Arbitrary<Buffer> {
  const object = formFields(fields).map((pairs) => JSON.stringify(Object.fromEntries(pairs)));
  const wrongTypes = fc
    .dictionary(fc.constantFrom(...(fields.length ? fields : ['x'])), fc.jsonValue({ maxDepth: 3 }))
    .map((o) => JSON.stringify(o));
  const other = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null');
  const malformed = fc.constantFrom(
    '{',
    '{"email":',
    '{"email":"a"',
    "{'email':'a'}",
    '[',
    'nul',
    '{"a":1}}',
    '\u0000',
    '{"name":"\\ud800"}',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    '{"0":{"json":{}}}',
  );
  return fc
    .oneof(
      { weight: 4, arbitrary: object },
      { weight: 2, arbitrary: wrongTypes },
      { weight: 1, arbitrary: other },
      { weight: 2, arbitrary: malformed },
    )
    .map((s) => Buffer.from(s));
}

export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';
/** Content types, right and wrong, including none at all. */
export const contentType = fc.constantFrom<string | undefined>(
  FORM,
  `${FORM}; charset=UTF-8`,
  `${FORM}; charset=latin1`,
  'APPLICATION/X-WWW-FORM-URLENCODED',
  JSON_TYPE,
  `${JSON_TYPE}; charset=utf-8`,
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '',
  'a/b/c',
  ';;;',
  undefined,
);
