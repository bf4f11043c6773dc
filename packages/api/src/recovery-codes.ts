import { randomInt } from 'node:crypto';
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { recoveryCodes, type Database } from '@accounts/db';
import { formatRecoveryCode, RECOVERY_ALPHABET, RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH } from '@accounts/validators';
import type { Vault } from './vault.js';

// Single-use recovery codes: ten per account, 50 random bits each, shown once and stored only as
// keyed digests bound to the account. After a SECRET_KEY rotation a code is found under any kept
// key (SECRET_KEY_PREVIOUS); a code cannot be digested again without being typed, and each is
// used once, so the codes of an earlier key live until used or replaced (`rotate-secrets` counts them).

const digestOf = (vault: Vault, userId: string, code: string) => vault.digest(`${userId}\n${code}`);
const candidateDigests = (vault: Vault, userId: string, code: string) => vault.digests(`${userId}\n${code}`);

function newCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return code;
}

/** Replaces the account's recovery codes with ten new ones (inside the caller's transaction); returns them as shown. */
export async function issueRecoveryCodes(tx: Database, vault: Vault, userId: string): Promise<string[]> {
  await deleteRecoveryCodes(tx, userId);
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  await tx.insert(recoveryCodes).values([...codes].map((code) => ({ userId, digest: digestOf(vault, userId, code) })));
  return [...codes].map(formatRecoveryCode);
}

export async function deleteRecoveryCodes(tx: Database, userId: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
}

/** Uses up one recovery code (normalized) in one statement: of two concurrent uses exactly one succeeds. */
export async function useRecoveryCode(tx: Database, vault: Vault, userId: string, code: string): Promise<boolean> {
  const used = await tx
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(recoveryCodes.userId, userId),
        inArray(recoveryCodes.digest, candidateDigests(vault, userId, code)),
        isNull(recoveryCodes.usedAt),
      ),
    )
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
