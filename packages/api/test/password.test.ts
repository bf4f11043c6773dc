import { testDrivers } from '@accounts/db/testing';
import { users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { costOf, createHasher } from '../src/password-hashing.js';
import { problemOf, registerUser, STRONG, STRONG2, uniqueEmail, useHarness } from './harness.js';

describe.each(testDrivers())('passwords on %s', (driver) => {
  const h = useHarness(driver, { failureWindowMs: 2000 });

  it('keeps leading and trailing spaces: the trimmed password does not sign in', async () => {
    const { email } = await registerUser(h, { password: '  spaced out passphrase  ' });
    expect((await problemOf(h.caller().account.signIn({ email, password: 'spaced out passphrase' }))).status).toBe(422);
    await expect(h.caller().account.signIn({ email, password: '  spaced out passphrase  ' })).resolves.toBeTruthy();
  });

  it('counts every character: a 200-character password sharing its first 72 bytes with another does not verify', async () => {
    const prefix = 'p'.repeat(72);
    const a = `${prefix}${'a'.repeat(128)}`;
    const b = `${prefix}${'b'.repeat(128)}`;
    const { email } = await registerUser(h, { password: a });
    const p = await problemOf(h.caller().account.signIn({ email, password: b }));
    expect(p).toMatchObject({ status: 422, fields: { password: 'credentials_invalid' } });
    await expect(h.caller().account.signIn({ email, password: a })).resolves.toBeTruthy();
  });

  it('normalizes with NFKC: the NFC and NFD forms of one password both verify', async () => {
    const nfc = 'crème brûlée über café'.normalize('NFC');
    const nfd = nfc.normalize('NFD');
    expect(nfc).not.toBe(nfd);
    const { email } = await registerUser(h, { password: nfd });
    await expect(h.caller().account.signIn({ email, password: nfc })).resolves.toBeTruthy();
    await expect(h.caller().account.signIn({ email, password: nfd })).resolves.toBeTruthy();
  });

  it('rejects an unknown email and a wrong password with the same answer', async () => {
    const { email } = await registerUser(h);
    const wrong = await problemOf(h.caller().account.signIn({ email, password: 'definitely not the password' }));
    const unknown = await problemOf(h.caller().account.signIn({ email: uniqueEmail('nobody'), password: 'definitely not the password' }));
    expect(wrong).toEqual(unknown);
    expect(wrong).toMatchObject({ status: 422, code: 'validation_failed', fields: { password: 'credentials_invalid' } });
  });

  it('locks an account after 5 failures in the window, even for the right password, without hashing; then lets the owner in', async () => {
    const { email, password } = await registerUser(h);
    for (let i = 0; i < 5; i++) {
      expect((await problemOf(h.caller({ ip: `198.51.100.${i}` }).account.signIn({ email, password: `wrong guess number ${i}` }))).status).toBe(422);
    }
    const locked = await problemOf(h.caller().account.signIn({ email, password }));
    expect(locked).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(locked.retryAfter).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 2100));
    await expect(h.caller().account.signIn({ email, password })).resolves.toBeTruthy();
  });

  it('locks an email without an account after as many failures, with the same answer', async () => {
    const { email: known } = await registerUser(h);
    const unknown = uniqueEmail('ghost');
    const answers: Record<string, unknown[]> = { known: [], unknown: [] };
    for (let i = 0; i < 6; i++) {
      for (const [who, email] of [['known', known], ['unknown', unknown]] as const) {
        const p = await problemOf(h.caller().account.signIn({ email, password: `wrong guess number ${i}` }));
        answers[who]!.push([p.status, p.code, p.fields]);
      }
    }
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known!.at(-1)).toEqual([429, 'too_many_attempts', {}]);
    await new Promise((r) => setTimeout(r, 2100));
  });

  it('counts a wrong current_password against the same per-account limit', async () => {
    const { token, email, password } = await registerUser(h);
    for (let i = 0; i < 3; i++) await problemOf(h.caller().account.signIn({ email, password: `wrong guess number ${i}` }));
    for (let i = 0; i < 2; i++) {
      const p = await problemOf(h.caller({ token }).account.changePassword({ current_password: `nope nope nope ${i}`, new_password: STRONG2, confirm_password: STRONG2 }));
      expect(p).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    }
    const p = await problemOf(h.caller({ token }).account.changePassword({ current_password: password, new_password: STRONG2, confirm_password: STRONG2 }));
    expect(p).toMatchObject({ status: 429, code: 'too_many_attempts' });
    await new Promise((r) => setTimeout(r, 2100));
  });

  it('stores the scheme and cost, and re-hashes a hash of an outdated cost at sign-in', async () => {
    const old = await createHasher({ cost: 5, pepper: 'test-pepper', workers: 1 });
    const email = uniqueEmail('rehash');
    const { user } = await h.caller().account.register({ name: 'Re Hash', email, password: STRONG, password2: STRONG });
    await h.db.db.update(users).set({ passwordHash: await old.hash(STRONG) }).where(eq(users.id, user.id));
    await old.close();
    await h.caller().account.signIn({ email, password: STRONG });
    const [row] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    expect(costOf(row!.passwordHash)).toBe(4);
    await expect(h.caller().account.signIn({ email, password: STRONG })).resolves.toBeTruthy();
  });

  it('honours a configured minimum length', async () => {
    const lenient = { ...h.config, passwordPolicy: { minLength: 8 } };
    const c = h.caller();
    const saved = h.config;
    h.config = lenient;
    try {
      const r = await c.account.register({ name: 'Short', email: uniqueEmail('min8'), password: 'plum-kite', password2: 'plum-kite' });
      expect(r.user.name).toBe('Short');
    } finally {
      h.config = saved;
    }
    const p = await problemOf(h.caller().account.register({ name: 'Short', email: uniqueEmail('min15'), password: 'plum-kite', password2: 'plum-kite' }));
    expect(p.fields.password).toBe('password_too_short');
  });
});
