import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

// What SECRET_KEY protects: TOTP secrets and mailed links waiting in the outbox, sealed with
// AES-256-GCM so a dump of the database holds none in clear, and recovery codes, whose HMAC-SHA256
// digest is the pepper under a bcrypt hash made on the hashing pool (hashCode), so that even with
// the key a dump can only be searched at bcrypt's pace. Each use has its own key, derived
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
  /**
   * A short secret to keep (a recovery code): its digest under the current key, salted and hashed
   * with bcrypt on the hashing pool, as `bcrypt-hmac-sha256:<key id>$<bcrypt string>`.
   */
  hashCode(value: string): Promise<string>;
  /**
   * Which of `stored` `value` is: what hashCode made of it under a kept key (compared on the
   * hashing pool), or a digest (what was kept before codes were hashed). Its index, or -1.
   */
  findCode(value: string, stored: readonly string[]): Promise<number>;
  /**
   * Keys of their own for a `use` (e.g. signing the OpenID Connect provider's cookies), derived
   * from every kept key: the current key's first, so what the others made still verifies.
   */
  keysFor(use: string): Buffer[];
}

/** What hashes the codes off the event loop: the hashing pool (password-hashing.ts). */
export interface CodeHashing {
  hashCode(digest: string): Promise<string>;
  verifyCode(digest: string, hash: string): Promise<boolean>;
}

const CODE_SCHEME = 'bcrypt-hmac-sha256';
const HASHED_CODE = /^bcrypt-hmac-sha256:([0-9a-f]{8})(\$2[aby]\$\d\d\$.+)$/;

/** The stored codes of the key `keyId` start so (the census counts the others). */
export const hashedCodePrefix = (keyId: string) => `${CODE_SCHEME}:${keyId}$`;

const VERSION = 'v1';
const IV_BYTES = 12;
const derive = (key: Buffer, use: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), use, 32));
/** A key's id in digests: 8 hex digits of a digest of its own, telling nothing of the key. */
const keyId = (key: Buffer) => derive(key, 'accounts/key-id').toString('hex').slice(0, 8);

/**
 * The vault of `secretKey` (the current key), also opening what `previousKeys` sealed. Digests
 * are "<key id>.<hex>"; bare hex is a digest from before key ids, made by one of the keys. Codes
 * are hashed on `codes`, the hashing pool; a vault without it (an operator command) hashes none.
 */
export function createVault(secretKey: Buffer, previousKeys: readonly Buffer[] = [], codes?: CodeHashing): Vault {
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
  const pool = () => {
    if (!codes) throw new Error('this vault was made without the hashing pool: it hashes no codes');
    return codes;
  };
  const digests = (value: string) =>
    keys.flatMap((k) => {
      const hex = hmac(k.digest, value);
      return [`${k.id}.${hex}`, hex];
    });
  /** Whether `value` is what `kept` holds: a hash compared on the pool, a digest of earlier versions at once. */
  const isCode = (value: string, kept: string, earlier: ReadonlySet<string>) => {
    const hashed = HASHED_CODE.exec(kept);
    if (!hashed) return Promise.resolve(earlier.has(kept));
    const key = keys.find((k) => k.id === hashed[1]);
    // Hashed under a key no longer kept: nothing can match it.
    if (!key) return Promise.resolve(false);
    return pool().verifyCode(hmac(key.digest, value), hashed[2]!);
  };
  return {
    seal,
    open: (sealed, boundTo) => openAny(sealed, boundTo).plain,
    resealed(sealed, boundTo) {
      const { plain, by } = openAny(sealed, boundTo);
      return by === 0 ? null : seal(plain, boundTo);
    },
    digest: (value) => `${current.id}.${hmac(current.digest, value)}`,
    digests,
    isCurrentDigest: (digest) => digest.startsWith(`${current.id}.`),
    hashCode: async (value) => `${CODE_SCHEME}:${current.id}${await pool().hashCode(hmac(current.digest, value))}`,
    keysFor: (use) => ring.map((k) => derive(k, `accounts/${use}`)),
    async findCode(value, stored) {
      const earlier = new Set(digests(value));
      // Each on a thread of the pool, side by side.
      const found = await Promise.all(stored.map((kept) => isCode(value, kept, earlier)));
      return found.indexOf(true);
    },
  };
}
