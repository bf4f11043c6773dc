import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

// What SECRET_KEY protects: TOTP secrets and mailed links waiting in the outbox, sealed with
// AES-256-GCM so a dump of the database holds none in clear, and recovery codes, stored as
// HMAC-SHA256 digests so a dump cannot be searched for them. Each use has its own key, derived
// from SECRET_KEY with HKDF. Rotation: SECRET_KEY_PREVIOUS keeps earlier keys, which still open
// and verify what they made; everything new is sealed and digested under the current key, and
// what an earlier key sealed is sealed again under the current one when used (resealed()) or by
// `npm run account -- rotate-secrets`.

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
  /** Seals `plain` for the record `boundTo` (e.g. an account id) under the current key: it opens only for that record. */
  seal(plain: string, boundTo: string): string;
  /** Opens what seal() made for the same record under any kept key; throws when it was altered or moved. */
  open(sealed: string, boundTo: string): string;
  /** The same value sealed under the current key, when an earlier key sealed it; null when it needs nothing. */
  resealed(sealed: string, boundTo: string): string | null;
  /** A keyed digest of a value that must be found again but never read back, under the current key. */
  digest(value: string): string;
  /** Every digest of `value` a kept key may have made (the current key's first): to find a value again. */
  digests(value: string): string[];
  /** Whether a stored digest was made under the current key. */
  isCurrentDigest(digest: string): boolean;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const derive = (key: Buffer, use: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), use, 32));
/** A key's id in digests: 8 hex digits of a digest of its own, telling nothing of the key. */
const keyId = (key: Buffer) => derive(key, 'accounts/key-id').toString('hex').slice(0, 8);

/**
 * The vault of `secretKey` (the current key), also opening what `previousKeys` sealed. Digests
 * are "<key id>.<hex>"; bare hex is a digest from before key ids, made by one of the keys.
 */
export function createVault(secretKey: Buffer, previousKeys: readonly Buffer[] = []): Vault {
  const ring = [secretKey, ...previousKeys];
  if (ring.some((k) => k.length < SECRET_KEY_BYTES))
    throw new Error(`SECRET_KEY must be at least ${SECRET_KEY_BYTES} bytes`);
  const keys = ring.map((k) => ({
    id: keyId(k),
    seal: derive(k, 'accounts/totp-secret'),
    digest: derive(k, 'accounts/recovery-code'),
  }));
  const current = keys[0]!;
  const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('hex');
  /** The index of the key that opens `sealed`, and what it opens to. */
  const openAny = (sealed: string, boundTo: string): { plain: string; by: number } => {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !body || !tag) throw new Error('not a sealed value');
    for (const [by, key] of keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.seal, Buffer.from(iv, 'base64url'))
          .setAAD(Buffer.from(boundTo))
          .setAuthTag(Buffer.from(tag, 'base64url'));
        const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
        return { plain: plain.toString('utf8'), by };
      } catch {
        // Not this key (or altered): the next one is tried; none opening it throws below.
      }
    }
    throw new Error('sealed value does not open under any kept key');
  };
  const seal = (plain: string, boundTo: string) => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.seal, iv).setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, body, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  };
  return {
    seal,
    open: (sealed, boundTo) => openAny(sealed, boundTo).plain,
    resealed(sealed, boundTo) {
      const { plain, by } = openAny(sealed, boundTo);
      return by === 0 ? null : seal(plain, boundTo);
    },
    digest: (value) => `${current.id}.${hmac(current.digest, value)}`,
    digests: (value) =>
      keys.flatMap((k) => {
        const hex = hmac(k.digest, value);
        return [`${k.id}.${hex}`, hex];
      }),
    isCurrentDigest: (digest) => digest.startsWith(`${current.id}.`),
  };
}
