import { randomInt } from 'node:crypto';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { recoveryCodes, type Database } from '@accounts/db';
import { formatRecoveryCode, RECOVERY_ALPHABET, RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH } from '@accounts/validators';
import type { Vault } from '../kernel/vault.js';

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

/** Ten new codes as shown, and what is kept of each: hashed on the pool before any transaction opens. */
export interface NewRecoveryCodes {
  shown: string[];
  kept: string[];
}

/**
 * Ten new codes for the account, hashed side by side on the hashing pool. Done before the
 * transaction that stores them (storeRecoveryCodes): on the embedded database a transaction holds
 * the only connection, and bcrypt inside one would hold every other request.
 */
export async function newRecoveryCodes(vault: Vault, userId: string): Promise<NewRecoveryCodes> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  const kept = await Promise.all([...codes].map((code) => vault.hashCode(boundTo(userId, code))));
  return { shown: [...codes].map(formatRecoveryCode), kept };
}

/** Replaces the account's recovery codes with `fresh` (inside the caller's transaction); returns them as shown. */
export async function storeRecoveryCodes(tx: Database, userId: string, fresh: NewRecoveryCodes): Promise<string[]> {
  await deleteRecoveryCodes(tx, userId);
  await tx.insert(recoveryCodes).values(fresh.kept.map((digest) => ({ userId, digest })));
  return fresh.shown;
}

export async function deleteRecoveryCodes(tx: Database, userId: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
}

/**
 * Which unused code of the account a typed one (normalized) is: compared with each on the hashing
 * pool, before any transaction (see newRecoveryCodes). Its row's id, or null.
 */
export async function findRecoveryCode(
  db: Database,
  vault: Vault,
  userId: string,
  code: string,
): Promise<string | null> {
  const unused = await db
    .select({ id: recoveryCodes.id, digest: recoveryCodes.digest })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  const index = await vault.findCode(
    boundTo(userId, code),
    unused.map((row) => row.digest),
  );
  return unused[index]?.id ?? null;
}

/** Uses up a code findRecoveryCode found, in one statement: of two concurrent uses exactly one succeeds. */
export async function useRecoveryCode(tx: Database, userId: string, id: string): Promise<boolean> {
  const used = await tx
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(recoveryCodes.id, id), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
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
