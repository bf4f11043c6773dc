import { describe, expect, it } from 'vitest';
import { createVault, newSecretKey, parseSecretKey } from '../src/kernel/vault.js';

describe('vault', () => {
  const key = Buffer.from(newSecretKey(), 'hex');
  const vault = createVault(key);

  it('reads SECRET_KEY as 64 hex digits or base64 of at least 32 bytes, nothing else', () => {
    expect(parseSecretKey('ab'.repeat(32))).toEqual(Buffer.from('ab'.repeat(32), 'hex'));
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretKey('ab'.repeat(31))).toBeNull();
    expect(parseSecretKey(Buffer.alloc(31).toString('base64'))).toBeNull();
    expect(parseSecretKey('not a key at all, just words')).toBeNull();
  });

  it('seals so that only the same key and record open it, and any change is detected', () => {
    const sealed = vault.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(vault.seal('JBSWY3DPEHPK3PXP', 'user-1')).not.toBe(sealed);
    expect(vault.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => vault.open(sealed, 'user-2')).toThrow();
    expect(() => createVault(Buffer.from(newSecretKey(), 'hex')).open(sealed, 'user-1')).toThrow();
    const [v, iv, body, tag] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => vault.open([v, iv, flipped.toString('base64url'), tag].join('.'), 'user-1')).toThrow();
  });

  it('digests with the key: the same value alike, another key differently', () => {
    expect(vault.digest('abcde')).toBe(vault.digest('abcde'));
    expect(createVault(Buffer.from(newSecretKey(), 'hex')).digest('abcde')).not.toBe(vault.digest('abcde'));
  });
});
