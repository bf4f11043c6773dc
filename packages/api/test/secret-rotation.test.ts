import { parseOtpauth, STRONG, testDrivers, totpCode, uniqueEmail } from '@accounts/testing';
import { recoveryCodes, totpCredentials, users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createHasher, pepperId, PUBLIC_DEFAULT_PEPPER } from '../src/credentials/password-hashing.js';
import type { Hasher } from '../src/kernel/context.js';
import { resealTotpSecrets, secretCensus } from '../src/operator/secret-rotation.js';
import { createVault, newSecretKey } from '../src/kernel/vault.js';
import { mailCaller, signUp } from './email-harness.js';
import { problemOf, TEST_SECRET_KEY, useHarness } from './harness.js';

// Rotating PASSWORD_PEPPER (PASSWORD_PEPPER_PREVIOUS) and SECRET_KEY (SECRET_KEY_PREVIOUS): what
// an earlier secret made keeps working, and moves to the current one as it is used.
const OLD_PEPPER = 'an-earlier-pepper-of-this-installation-0001';
const NEW_PEPPER = 'the-current-pepper-of-this-installation-0002';

describe('the pepper ring', () => {
  const pools: Hasher[] = [];
  const pool = async (pepper: string, previousPeppers: string[] = []) => {
    const hasher = await createHasher({ cost: 4, pepper, previousPeppers, workers: 1 });
    pools.push(hasher);
    return hasher;
  };
  afterAll(async () => {
    for (const p of pools) await p.close();
  });

  it('records the pepper id in each hash; a previous pepper verifies (and asks for a re-hash), a forgotten one does not', async () => {
    const old = await pool(OLD_PEPPER);
    const stored = await old.hash(STRONG);
    expect(stored).toMatch(new RegExp(`^bcrypt-hmac-sha384:${pepperId(OLD_PEPPER)}\\$2[ab]\\$04\\$`));
    expect(stored).not.toContain(OLD_PEPPER);
    const rotated = await pool(NEW_PEPPER, [OLD_PEPPER]);
    expect(await rotated.verify(STRONG, stored)).toBe(true);
    expect(await rotated.verify('not the password at all', stored)).toBe(false);
    expect(rotated.needsRehash(stored)).toBe(true);
    expect(rotated.needsRehash(await rotated.hash(STRONG))).toBe(false);
    const forgot = await pool(NEW_PEPPER);
    expect(await forgot.verify(STRONG, stored)).toBe(false);
  });

  it('checks a hash from before pepper ids against the current, the previous and the public default pepper', async () => {
    const withoutId = (h: string) => h.replace(/^bcrypt-hmac-sha384:[0-9a-f]{8}/, 'bcrypt-hmac-sha384');
    const current = await pool(NEW_PEPPER, [OLD_PEPPER]);
    for (const pepper of [PUBLIC_DEFAULT_PEPPER, OLD_PEPPER, NEW_PEPPER]) {
      const legacy = withoutId(await (await pool(pepper)).hash(STRONG));
      expect(await current.verify(STRONG, legacy)).toBe(true);
      expect(current.needsRehash(legacy)).toBe(true);
    }
    const unknown = withoutId(await (await pool('some-other-pepper-nobody-kept-0000000')).hash(STRONG));
    expect(await current.verify(STRONG, unknown)).toBe(false);
  });
});

describe('the SECRET_KEY ring', () => {
  const oldKey = Buffer.from(newSecretKey(), 'hex');
  const newKey = Buffer.from(newSecretKey(), 'hex');

  it('opens and verifies with a previous key, seals and digests with the current one', () => {
    const before = createVault(oldKey);
    const after = createVault(newKey, [oldKey]);
    const sealed = before.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(after.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    const resealed = after.resealed(sealed, 'user-1')!;
    expect(createVault(newKey).open(resealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(after.resealed(resealed, 'user-1')).toBeNull();
    expect(() => createVault(newKey).open(sealed, 'user-1')).toThrow();
    expect(after.digests('code')).toContain(before.digest('code'));
    expect(after.isCurrentDigest(after.digest('code'))).toBe(true);
    expect(after.isCurrentDigest(before.digest('code'))).toBe(false);
  });
});

describe.each(testDrivers())('rotation of stored secrets on %s', (driver) => {
  const h = useHarness(driver);
  const hashOf = async (id: string) =>
    (await h.db.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, id)))[0]!.hash;

  it('a sign-in re-hashes a password under the current pepper; the census counts what is left', async () => {
    const email = uniqueEmail('pepper');
    const { user } = await h.caller().account.register({ name: 'Pep Per', email, password: STRONG, password2: STRONG });
    const first = h.hasher;
    const rotated = await createHasher({ cost: 4, pepper: NEW_PEPPER, previousPeppers: ['test-pepper'], workers: 1 });
    try {
      h.hasher = rotated;
      expect((await secretCensus(h.db.db, h.vault, rotated.pepperId)).hashesUnderOtherPeppers).toBeGreaterThan(0);
      await h.caller().account.signIn({ email, password: STRONG });
      expect(await hashOf(user.id)).toMatch(new RegExp(`^bcrypt-hmac-sha384:${pepperId(NEW_PEPPER)}\\$`));
      // Without the earlier pepper the re-hashed password still works.
      await h.caller().account.signIn({ email, password: STRONG });
    } finally {
      h.hasher = first;
      await rotated.close();
    }
  });

  /** An account with the authenticator app on, sealed under the harness's key. */
  async function withApp() {
    const account = await signUp(h);
    const owner = mailCaller(h, { token: account.token, device: account.device });
    const { secret } = parseOtpauth((await owner.twoStep.setupTotp()).uri);
    const { recoveryCodes: codes } = await owner.twoStep.enableTotp({
      code: totpCode(secret),
      current_password: STRONG,
    });
    const sealedOf = async () =>
      (await h.db.db.select().from(totpCredentials).where(eq(totpCredentials.userId, account.user.id)))[0]!.secret!;
    return { ...account, secret, codes, sealedOf };
  }
  const passwordStep = async (email: string) => {
    const c = mailCaller(h);
    expect((await problemOf(c.account.signIn({ email, password: STRONG }))).code).toBe('second_factor_required');
    return mailCaller(h, { pending: c.pending.at(-1)! });
  };

  it('an app sealed under an earlier SECRET_KEY works and is sealed again on use; a recovery code still works once', async () => {
    const app = await withApp();
    // Under the key they were hashed with, none is counted.
    expect((await secretCensus(h.db.db, h.vault, h.hasher.pepperId)).recoveryCodesUnderOtherKeys).toBe(0);
    const rotated = createVault(Buffer.from(newSecretKey(), 'hex'), [TEST_SECRET_KEY], h.hasher);
    const kept = h.vault;
    h.vault = rotated;
    try {
      const sealed = await app.sealedOf();
      expect(rotated.resealed(sealed, app.user.id)).not.toBeNull();
      await (await passwordStep(app.email)).account.signInSecondStep({ code: totpCode(app.secret, Date.now(), 1) });
      const resealed = await app.sealedOf();
      expect(rotated.resealed(resealed, app.user.id)).toBeNull();
      expect(() => createVault(TEST_SECRET_KEY).open(resealed, app.user.id)).toThrow();
      // Recovery codes cannot be digested again until typed: an earlier key's still count, and work once.
      expect(
        (await secretCensus(h.db.db, rotated, h.hasher.pepperId)).recoveryCodesUnderOtherKeys,
      ).toBeGreaterThanOrEqual(app.codes.length);
      await (await passwordStep(app.email)).account.signInSecondStep({ code: app.codes[0]! });
      const rows = await h.db.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, app.user.id));
      expect(rows.filter((r) => r.usedAt !== null)).toHaveLength(1);
      expect(
        await problemOf((await passwordStep(app.email)).account.signInSecondStep({ code: app.codes[0]! })),
      ).toMatchObject({
        status: 422,
      });
    } finally {
      h.vault = kept;
    }
  });

  it('rotate-secrets seals every app secret under the current key; one no kept key opens is counted, not changed', async () => {
    const app = await withApp();
    const rotated = createVault(Buffer.from(newSecretKey(), 'hex'), [TEST_SECRET_KEY]);
    const before = await app.sealedOf();
    const first = await resealTotpSecrets(h.db.db, rotated);
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    // (The app of the test before is sealed under a key this ring lacks: counted as unreadable.)
    expect(await app.sealedOf()).not.toBe(before);
    expect(rotated.open(await app.sealedOf(), app.user.id)).toBe(app.secret);
    expect((await resealTotpSecrets(h.db.db, rotated)).resealed).toBe(0);
    // A key that was dropped from the ring: nothing opens, nothing is overwritten.
    const lost = createVault(Buffer.from(newSecretKey(), 'hex'));
    const kept = await app.sealedOf();
    expect((await resealTotpSecrets(h.db.db, lost)).unreadable).toBeGreaterThanOrEqual(1);
    expect(await app.sealedOf()).toBe(kept);
  });
});
