import { and, eq, isNotNull, lt, sql } from 'drizzle-orm';
import {
  passkeys,
  pendingSignIns,
  recoveryCodes,
  totpCredentials,
  users,
  type Database,
  type User,
} from '@accounts/db';
import type { SecondStepCode, SecondStepMethod } from '@accounts/validators';
import { deleteRecoveryCodes, findRecoveryCode, useRecoveryCode } from './recovery-codes.js';
import { matchingStep } from './totp.js';
import type { Context } from '../kernel/context.js';
import type { Vault } from '../kernel/vault.js';
import { credentialsChangeTime, holdForCredentialsChange } from '../records/tokens.js';

// An account's second step: which ways it has, and the one place a code is used up. Every way
// into a session that asks for the second step goes through second-step.ts; users.two_step says
// whether it is asked for, and only refreshTwoStep writes it, from the account's factors (an
// active authenticator app, passkeys).

export interface TwoStepStatus {
  enabled: boolean;
  /** The ways the second step can be done now. */
  methods: SecondStepMethod[];
  recoveryCodesLeft: number;
}

const OFF: TwoStepStatus = { enabled: false, methods: [], recoveryCodesLeft: 0 };

/** The account's two-step state; an account without it costs no query (the session check's row says so). */
export async function twoStepStatus(db: Database, user: User): Promise<TwoStepStatus> {
  if (!user.twoStep) return OFF;
  const [row] = await db
    .select({
      passkeys: sql<number>`(select count(*) from ${passkeys} where ${passkeys.userId} = ${user.id})`.mapWith(Number),
      totp: sql<boolean>`exists (select 1 from ${totpCredentials} where ${totpCredentials.userId} = ${user.id} and ${totpCredentials.secret} is not null)`,
      left: sql<number>`(select count(*) from ${recoveryCodes} where ${recoveryCodes.userId} = ${user.id} and ${recoveryCodes.usedAt} is null)`.mapWith(
        Number,
      ),
    })
    .from(sql`(select 1) as one`);
  const { passkeys: keys = 0, totp = false, left = 0 } = row ?? {};
  const methods: SecondStepMethod[] = [];
  if (keys > 0) methods.push('passkey');
  if (totp) methods.push('totp');
  if (left > 0) methods.push('recovery_code');
  return { enabled: true, methods, recoveryCodesLeft: left };
}

/** Whether the account has a second factor (an active authenticator app, a passkey), leaving out one passkey. */
const hasFactorSql = (userId: string, exceptPasskey: string | null = null) =>
  sql<boolean>`(exists (select 1 from ${totpCredentials} where ${totpCredentials.userId} = ${userId} and ${totpCredentials.secret} is not null) or exists (select 1 from ${passkeys} where ${passkeys.userId} = ${userId}${exceptPasskey === null ? sql`` : sql` and ${passkeys.id} <> ${exceptPasskey}`}))`;

/**
 * Whether the account has a second factor, besides the passkey `exceptPasskey` when given (would
 * removing it leave one?).
 */
export async function hasSecondFactor(db: Database, userId: string, exceptPasskey?: string): Promise<boolean> {
  const [row] = await db.select({ on: hasFactorSql(userId, exceptPasskey ?? null) }).from(sql`(select 1) as one`);
  return row?.on ?? false;
}

/**
 * Sets users.two_step from the account's factors, in the caller's transaction; returns it. Called
 * whenever a factor is turned on or off, so it also ends the account's outstanding mailed links
 * (tokens.ts): a link granted before a change of factors never works after it.
 */
export async function refreshTwoStep(tx: Database, userId: string): Promise<boolean> {
  await holdForCredentialsChange(tx, userId);
  const [row] = await tx
    .update(users)
    .set({ twoStep: hasFactorSql(userId), credentialsChangedAt: credentialsChangeTime() })
    .where(eq(users.id, userId))
    .returning({ on: users.twoStep });
  return row?.on ?? false;
}

/**
 * After a factor went (the app turned off, a passkey removed): when none is left the step is off,
 * and the recovery codes and any sign-in waiting for a second step go with it.
 */
export async function afterFactorRemoved(tx: Database, userId: string): Promise<void> {
  if (await refreshTwoStep(tx, userId)) return;
  await deleteRecoveryCodes(tx, userId);
  await tx.delete(pendingSignIns).where(eq(pendingSignIns.userId, userId));
}

/** Turns the authenticator app off (other factors stay). */
export async function removeTotp(tx: Database, userId: string): Promise<void> {
  await tx.delete(totpCredentials).where(eq(totpCredentials.userId, userId));
  await afterFactorRemoved(tx, userId);
}

/** Turns the second step off altogether (an operator's reset): the app, every passkey, the recovery codes. */
export async function removeSecondStep(tx: Database, userId: string): Promise<void> {
  await tx.delete(passkeys).where(eq(passkeys.userId, userId));
  await removeTotp(tx, userId);
}

/** A second-step code checked as far as it can be outside a transaction, to be used up inside one. */
export type CodeUse = (tx: Database) => Promise<SecondStepMethod | null>;

/**
 * Checks a second-step code of the account and returns how to use it up inside a transaction: a
 * recovery code is compared with the account's on the hashing pool now (bcrypt must not run while
 * a transaction holds the database) and marked used there once; an app code is used once per time
 * step (a step at or before the last one accepted is refused, so a code seen over a shoulder cannot
 * be replayed). The use answers what was used, or null for a wrong, used or replayed code.
 */
export async function checkSecondStepCode(
  db: Database,
  vault: Vault,
  userId: string,
  code: SecondStepCode,
  log?: Log,
): Promise<CodeUse> {
  if (code.kind === 'recovery') {
    const id = await findRecoveryCode(db, vault, userId, code.code);
    return async (tx) => (id !== null && (await useRecoveryCode(tx, userId, id)) ? 'recovery_code' : null);
  }
  return (tx) => useAppCode(tx, vault, userId, code.code, log);
}

async function useAppCode(
  tx: Database,
  vault: Vault,
  userId: string,
  code: string,
  log?: Log,
): Promise<SecondStepMethod | null> {
  const mine = eq(totpCredentials.userId, userId);
  const [row] = await tx
    .select({ secret: totpCredentials.secret })
    .from(totpCredentials)
    .where(and(mine, isNotNull(totpCredentials.secret)));
  if (!row?.secret) return null;
  const secret = openSecret(vault, row.secret, userId, log);
  if (secret === null) return null;
  const step = matchingStep(secret, code);
  if (step === null) return null;
  // Compare-and-set: of two uses of one code, only the first moves the step.
  // A secret sealed under an earlier SECRET_KEY is sealed again under the current one as it is used.
  const resealed = vault.resealed(row.secret, userId);
  const moved = await tx
    .update(totpCredentials)
    .set({ lastStep: step, ...(resealed ? { secret: resealed } : {}) })
    .where(and(mine, lt(totpCredentials.lastStep, step)))
    .returning({ step: totpCredentials.lastStep });
  return moved.length === 1 ? 'totp' : null;
}

/**
 * An authenticator-app secret, opened; null (and a line in the log) when it does not open under
 * this SECRET_KEY: the key changed or was lost, and no code can be checked (docs/operations.md).
 */
export function openSecret(vault: Vault, sealed: string, userId: string, log?: Log): string | null {
  try {
    return vault.open(sealed, userId);
  } catch {
    log?.warn(
      { userId },
      'an authenticator-app secret does not open under this SECRET_KEY: was the key changed or lost?',
    );
    return null;
  }
}

type Log = Context['log'];
