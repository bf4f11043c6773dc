import { createHmac } from 'node:crypto';

// An authenticator app, for tests: RFC 6238 written from the RFC with Node's HMAC, independent of
// the library the service uses, so a test checks the service against the standard, not itself.

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The bytes of a base32 text (RFC 4648, no padding needed). */
export function base32Decode(text: string): Buffer {
  let bits = '';
  for (const ch of text.replace(/=+$/, '').toUpperCase()) {
    const v = BASE32.indexOf(ch);
    if (v < 0) throw new Error(`not base32: ${ch}`);
    bits += v.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The parameters an app reads from an otpauth://totp/ URI. */
export function parseOtpauth(uri: string) {
  const url = new URL(uri);
  if (url.protocol !== 'otpauth:' || url.host !== 'totp') throw new Error(`not a TOTP URI: ${uri}`);
  const q = url.searchParams;
  return {
    label: decodeURIComponent(url.pathname.slice(1)),
    secret: q.get('secret')!,
    issuer: q.get('issuer'),
    algorithm: q.get('algorithm') ?? 'SHA1',
    digits: Number(q.get('digits') ?? 6),
    period: Number(q.get('period') ?? 30),
  };
}

/** The code an app shows for `secret` (base32) at `at` (ms), `offset` steps away. */
export function totpCode(secret: string, at = Date.now(), offset = 0, period = 30, digits = 6): string {
  const counter = Math.floor(at / 1000 / period) + offset;
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', base32Decode(secret)).update(msg).digest();
  const o = mac[mac.length - 1]! & 0xf;
  const n = (mac.readUInt32BE(o) & 0x7fffffff) % 10 ** digits;
  return String(n).padStart(digits, '0');
}

/** Milliseconds until the next time step begins (a test waits it out to get a fresh code). */
export const msToNextStep = (at = Date.now(), period = 30) => period * 1000 - (at % (period * 1000));
