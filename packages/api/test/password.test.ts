import { STRONG, STRONG2, uniqueEmail, testDrivers } from '@accounts/testing';
import { users } from '@accounts/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { costOf, createHasher } from '../src/credentials/password-hashing.js';
import { problemOf, registerUser, useHarness } from './harness.js';

describe.each(testDrivers())('passwords on %s', (driver) => {
  const h = useHarness(driver);

  it('keeps leading and trailing spaces: the trimmed password does not sign in', async () => {
    const { email } = await registerUser(h, { password: '  spaced out passphrase  ' });
    expect((await problemOf(h.caller().account.signIn({ email, password: 'spaced out passphrase' }))).status).toBe(422);
    await expect(h.caller().account.signIn({ email, password: '  spaced out passphrase  ' })).resolves.toBeTruthy();
  });

  it('counts every character: a 200-character password sharing its first 72 bytes with another does not verify', async () => {
    const prefix = `${STRONG} ${STRONG2}`.slice(0, 72);
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
    const unknown = await problemOf(
      h.caller().account.signIn({ email: uniqueEmail('nobody'), password: 'definitely not the password' }),
    );
    expect(wrong).toEqual(unknown);
    expect(wrong).toMatchObject({
      status: 422,
      code: 'validation_failed',
      fields: { password: 'credentials_invalid' },
    });
  });

  it('stores the scheme and cost, and re-hashes a hash of an outdated cost at sign-in', async () => {
    const old = await createHasher({ cost: 5, pepper: 'test-pepper', workers: 1 });
    const email = uniqueEmail('rehash');
    const { user } = await h.caller().account.register({ name: 'Re Hash', email, password: STRONG, password2: STRONG });
    await h.db.db
      .update(users)
      .set({ passwordHash: await old.hash(STRONG) })
      .where(eq(users.id, user.id));
    await old.close();
    await h.caller().account.signIn({ email, password: STRONG });
    const [row] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    expect(costOf(row!.passwordHash)).toBe(4);
    await expect(h.caller().account.signIn({ email, password: STRONG })).resolves.toBeTruthy();
  });

  it('honours a configured minimum length', async () => {
    const lenient = { ...h.config, passwordPolicy: { minLength: 8 } };
    const r = await h.caller({ config: lenient }).account.register({
      name: 'Short',
      email: uniqueEmail('min8'),
      password: 'Zq8#vX2!pLm',
      password2: 'Zq8#vX2!pLm',
    });
    expect(r.user.name).toBe('Short');
    const p = await problemOf(
      h.caller().account.register({
        name: 'Short',
        email: uniqueEmail('min15'),
        password: 'Zq8#vX2!pLm',
        password2: 'Zq8#vX2!pLm',
      }),
    );
    expect(p.fields.password).toBe('password_too_short');
  });
});
