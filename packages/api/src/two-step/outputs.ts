import { z } from 'zod';

// What the two-step procedures answer.

/** A pending set-up: the secret for manual entry, the otpauth:// URI, and the URI as a QR code (SVG data: URL). */
export const totpSetupResult = z.object({ secret: z.string(), uri: z.string(), qrCode: z.string() });

/** Ten single-use recovery codes, `xxxxx-xxxxx`, shown this once. */
export const recoveryCodesResult = z.object({ recoveryCodes: z.array(z.string()) });
