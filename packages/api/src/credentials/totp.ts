import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

// Authenticator-app codes (RFC 6238): SHA-1, six digits, 30-second steps, the parameters every
// app (Google Authenticator, 1Password, Aegis…) reads from an otpauth:// URI.

const PERIOD = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';
/** Steps of clock drift accepted either side of now. */
const DRIFT = 1;

/** A new secret: 160 random bits (RFC 4226's recommendation), as base32. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** The otpauth:// URI an app scans: `otpauth://totp/<issuer>:<email>?secret=…&issuer=…`. */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  return new TOTP({
    issuer,
    label: account,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  }).toString();
}

/**
 * The time step whose code `code` is, within the accepted drift, or null. The comparison is
 * constant-time (otpauth's timingSafeEqual); the caller refuses a step already used.
 */
export function matchingStep(secret: string, code: string, now = Date.now()): number | null {
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD,
    timestamp: now,
    window: DRIFT,
  });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
}

/** The URI as a QR code: an SVG image, as a data: URL a page shows in an <img>. */
export async function qrCodeImage(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
