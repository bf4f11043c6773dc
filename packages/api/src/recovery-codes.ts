import { randomInt } from 'node:crypto';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { recoveryCodes, type Database } from '@accounts/db';
import { formatRecoveryCode, RECOVERY_ALPHABET, RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH } from '@accounts/validators';
import type { Vault } from './vault.js';

// Single-use recovery codes: ten per account, 50 random bits each, shown once. Fewer than 112 bits,
// so each is kept salted and hashed with a password hashing scheme (NIST SP 800-63B-4 §3.1.2.2):
// bcrypt, on the hashing pool, of its digest under SECRET_KEY bound to the account (vault.hashCode).
// A typed code is compared with the account's unused ones on the pool. Codes issued before were
// kept as that digest alone: they still work until used or replaced. After a SECRET_KEY rotation a
// code is found under any kept key (SECRET_KEY_PREVIOUS); `rotate-secrets` counts those left.

/** What a code is hashed as: bound to its account, so a row moved to another account matches nothing. */
const boundTo = (userId: string, code: string) => `${userId}\n${code}`;

function newCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return code;
}

/** Replaces the account's recovery codes with ten new ones (inside the caller's transaction); returns them as shown. */
export async function issueRecoveryCodes(tx: Database, vault: Vault, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  // Hashed before the account's rows are touched, side by side on the pool.
  const hashes = await Promise.all([...codes].map((code) => vault.hashCode(boundTo(userId, code))));
  await deleteRecoveryCodes(tx, userId);
  await tx.insert(recoveryCodes).values(hashes.map((digest) => ({ userId, digest })));
  return [...codes].map(formatRecoveryCode);
}

export async function deleteRecoveryCodes(tx: Database, userId: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
}

/**
 * Uses up one recovery code (normalized): compared with the account's unused codes on the hashing
 * pool, then marked used only if it still is (compare-and-set), so of two concurrent uses exactly
 * one succeeds.
 */
export async function useRecoveryCode(tx: Database, vault: Vault, userId: string, code: string): Promise<boolean> {
  const unused = await tx
    .select({ id: recoveryCodes.id, digest: recoveryCodes.digest })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  const found =
    unused[
      await vault.findCode(
        boundTo(userId, code),
        unused.map((row) => row.digest),
      )
    ];
  if (!found) return false;
  const used = await tx
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(recoveryCodes.id, found.id), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length === 1;
}

export async function recoveryCodesLeft(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return row?.n ?? 0;
}
