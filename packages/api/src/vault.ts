import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

// What SECRET_KEY protects: TOTP secrets, sealed with AES-256-GCM so a dump of the database holds
// none in clear, and recovery codes, stored as HMAC-SHA256 digests so a dump cannot be searched
// for them. Each use has its own key, derived from SECRET_KEY with HKDF.

/** SECRET_KEY's minimum length. */
export const SECRET_KEY_BYTES = 32;

/**
 * SECRET_KEY as given: 64 hex digits, or base64 (standard or URL-safe) of at least 32 bytes.
 * Null for anything else (the caller names the variable; the value is never echoed).
 */
export function parseSecretKey(value: string): Buffer | null {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  // Hex of another length is a mistake (a digit lost in a copy), not base64 that happens to be all hex.
  if (/^[0-9a-fA-F]+$/.test(v)) return null;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) return null;
  const bytes = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length >= SECRET_KEY_BYTES ? bytes : null;
}

/** A new SECRET_KEY, as 64 hex digits. */
export const newSecretKey = () => randomBytes(SECRET_KEY_BYTES).toString('hex');

export interface Vault {
  /** Seals `plain` for the record `boundTo` (e.g. an account id): it opens only for that record. */
  seal(plain: string, boundTo: string): string;
  /** Opens what seal() made for the same record; throws when it was altered or moved. */
  open(sealed: string, boundTo: string): string;
  /** A keyed digest (hex) of a value that must be found again but never read back. */
  digest(value: string): string;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const derive = (key: Buffer, use: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), use, 32));

export function createVault(secretKey: Buffer): Vault {
  if (secretKey.length < SECRET_KEY_BYTES) throw new Error(`SECRET_KEY must be at least ${SECRET_KEY_BYTES} bytes`);
  const sealKey = derive(secretKey, 'accounts/totp-secret');
  const digestKey = derive(secretKey, 'accounts/recovery-code');
  return {
    seal(plain, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv).setAAD(Buffer.from(boundTo));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed, boundTo) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', sealKey, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(boundTo))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    digest: (value) => createHmac('sha256', digestKey).update(value).digest('hex'),
  };
}
