import { and, count, eq, isNotNull, not, or, sql } from 'drizzle-orm';
import { recoveryCodes, totpCredentials, users, type Database } from '@accounts/db';
import { hashedCodePrefix, type Vault } from '../kernel/vault.js';

// What is still made by an earlier secret after a rotation (PASSWORD_PEPPER_PREVIOUS,
// SECRET_KEY_PREVIOUS), and the sealing again of what can be sealed again without the person:
// the server reports the first at start-up, `npm run account -- rotate-secrets` does the second.

export interface SecretCensus {
  /** Password hashes made with another pepper than the current one (or before pepper ids): re-hashed at their next sign-in. */
  hashesUnderOtherPeppers: number;
  /** Of those, hashes from before pepper ids. */
  hashesWithoutPepperId: number;
  /** Unused recovery codes digested under an earlier SECRET_KEY (or before key ids): they go when used or replaced. */
  recoveryCodesUnderOtherKeys: number;
}

/** Counts what still needs an earlier pepper or key. `pepperId`: the current pepper's id (password-hashing.ts). */
export async function secretCensus(db: Database, vault: Vault, pepperId: string): Promise<SecretCensus> {
  const currentDigest = vault.digest('').split('.')[0]!;
  const [hashes] = await db
    .select({
      other: count(),
      legacy: sql<number>`count(*) filter (where ${users.passwordHash} not like 'bcrypt-hmac-sha384:%')`.mapWith(
        Number,
      ),
    })
    .from(users)
    .where(not(sql`${users.passwordHash} like ${`bcrypt-hmac-sha384:${pepperId}$%`}`));
  // A code's row holds its hash, or (issued before codes were hashed) its digest; both name their key.
  const underCurrent = or(
    sql`${recoveryCodes.digest} like ${`${currentDigest}.%`}`,
    sql`${recoveryCodes.digest} like ${`${hashedCodePrefix(currentDigest)}%`}`,
  )!;
  const [codes] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(sql`${recoveryCodes.usedAt} is null`, not(underCurrent)));
  return {
    hashesUnderOtherPeppers: hashes?.other ?? 0,
    hashesWithoutPepperId: hashes?.legacy ?? 0,
    recoveryCodesUnderOtherKeys: codes?.n ?? 0,
  };
}

/**
 * Seals every authenticator-app secret (active or pending) sealed under an earlier SECRET_KEY
 * again under the current one, a row at a time. Returns how many were sealed again and how many
 * open under no kept key (their owners need `reset-second-factor`).
 */
export async function resealTotpSecrets(db: Database, vault: Vault): Promise<{ resealed: number; unreadable: number }> {
  const rows = await db
    .select({ userId: totpCredentials.userId })
    .from(totpCredentials)
    .where(or(isNotNull(totpCredentials.secret), isNotNull(totpCredentials.pendingSecret)));
  let resealed = 0;
  let unreadable = 0;
  for (const { userId } of rows) {
    const outcome = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(totpCredentials).where(eq(totpCredentials.userId, userId)).for('update');
      if (!row) return 'gone';
      try {
        const secret = row.secret ? vault.resealed(row.secret, userId) : null;
        const pendingSecret = row.pendingSecret ? vault.resealed(row.pendingSecret, userId) : null;
        if (!secret && !pendingSecret) return 'current';
        await tx
          .update(totpCredentials)
          .set({ ...(secret ? { secret } : {}), ...(pendingSecret ? { pendingSecret } : {}) })
          .where(eq(totpCredentials.userId, userId));
        return 'resealed';
      } catch {
        return 'unreadable';
      }
    });
    if (outcome === 'resealed') resealed++;
    if (outcome === 'unreadable') unreadable++;
  }
  return { resealed, unreadable };
}
