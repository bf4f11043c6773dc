import { STRONG, uniqueEmail, testDrivers } from '@accounts/testing';
import { accountEvents, users } from '@accounts/db';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { problemFrom, problemOf, useHarness } from './harness.js';

describe.each(testDrivers())('register on %s', (driver) => {
  const h = useHarness(driver);

  it('creates the user in the realm, starts a session and never returns the hash', async () => {
    const c = h.caller({ ip: '203.0.113.7' });
    const email = uniqueEmail('New');
    const res = await c.account.register({
      name: '  Ada Lovelace ',
      email: `  ${email.toUpperCase()} `,
      password: STRONG,
      password2: STRONG,
    });
    expect(res.user).toEqual({
      id: expect.any(String),
      name: 'Ada Lovelace',
      email: email.toLowerCase(),
      realm: 'default',
      emailVerified: false,
    });
    expect(JSON.stringify(res)).not.toMatch(/bcrypt|\$2b\$/);
    expect(c.issued).toHaveLength(1);
    const [row] = await h.db.db.select().from(users).where(eq(users.id, res.user.id));
    // The scheme, the id of the pepper that made it (8 hex), then bcrypt at the configured cost.
    expect(row!.passwordHash).toMatch(/^bcrypt-hmac-sha384:[0-9a-f]{8}\$2b\$04\$/);
    const events = await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, res.user.id));
    expect(events.map((e) => [e.type, e.clientIp])).toEqual([['registered', '203.0.113.7']]);
    const me = await h.caller({ token: c.issued[0]!.token }).account.me();
    expect(me.user.id).toBe(res.user.id);
  });

  it('allows one email in two realms', async () => {
    await h.realm('acme');
    const email = uniqueEmail('both');
    const a = await h.caller().account.register({ name: 'A', email, password: STRONG, password2: STRONG });
    const b = await h
      .caller({ realm: 'acme' })
      .account.register({ name: 'A', email, password: STRONG, password2: STRONG });
    expect(a.user.realm).toBe('default');
    expect(b.user.realm).toBe('acme');
    expect(a.user.id).not.toBe(b.user.id);
  });

  it('treats the same email with other case and spaces in one realm as taken (409)', async () => {
    const email = uniqueEmail('dup');
    await h.caller().account.register({ name: 'A', email, password: STRONG, password2: STRONG });
    const p = await problemOf(
      h
        .caller()
        .account.register({ name: 'B', email: ` ${email.toUpperCase()}\t`, password: STRONG, password2: STRONG }),
    );
    expect(p).toMatchObject({ status: 409, code: 'email_taken', fields: { email: 'email_taken' } });
  });

  it('gives exactly one user for 20 concurrent registrations of one email', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        h.caller().account.register({
          name: `R${i}`,
          email: i % 2 ? email.toUpperCase() : email,
          password: STRONG,
          password2: STRONG,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((await problemFrom(r.reason)).code).toBe('email_taken');
    }
    const rows = await h.db.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.email, email));
    expect(rows[0]!.n).toBe(1);
  });

  it('returns every field error of a request at once, and stores nothing', async () => {
    const before = await h.db.db.select({ n: sql<number>`count(*)::int` }).from(users);
    const p = await problemOf(
      h.caller().account.register({ name: '', email: 'not-an-email', password: 'short', password2: 'other' }),
    );
    expect(p).toEqual({
      status: 422,
      code: 'validation_failed',
      fields: {
        name: 'required',
        email: 'invalid_email',
        password: 'password_too_short',
        password2: 'password_mismatch',
      },
      retryAfter: undefined,
    });
    const missing = await problemOf(h.caller().account.register({} as never));
    expect(missing.fields).toEqual({
      name: 'required',
      email: 'required',
      password: 'required',
      password2: 'required',
    });
    const wrongTypes = await problemOf(
      h.caller().account.register({ name: 5, email: ['a'], password: {}, password2: null } as never),
    );
    expect(wrongTypes.fields).toEqual({
      name: 'invalid_type',
      email: 'invalid_type',
      password: 'invalid_type',
      password2: 'required',
    });
    const after = await h.db.db.select({ n: sql<number>`count(*)::int` }).from(users);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it.each([
    ['name over 150 characters', { name: 'é'.repeat(151) }, 'name', 'name_too_long'],
    ['an invisible name', { name: '\u200b' }, 'name', 'name_invalid_chars'],
    ['a Hangul filler for a name', { name: '\u3164' }, 'name', 'name_invalid_chars'],
    ['a name with a right-to-left override', { name: 'Ann\u202eevil' }, 'name', 'name_invalid_chars'],
    ['a name with stacked combining marks', { name: `Z${'\u0300'.repeat(12)}algo` }, 'name', 'name_combining_marks'],
    ['name with a control character', { name: 'Bob\u0007' }, 'name', 'name_invalid_chars'],
    ['name of spaces only', { name: '   ' }, 'name', 'required'],
    [
      'email over 254 characters',
      { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` },
      'email',
      'email_too_long',
    ],
    ['email without a domain', { email: 'someone@' }, 'email', 'invalid_email'],
    ['email local part over 64 octets', { email: `${'a'.repeat(65)}@example.com` }, 'email', 'email_local_too_long'],
    [
      '4 typed characters that NFKC makes 16',
      { password: '㌀㌁㌂㌃', password2: '㌀㌁㌂㌃' },
      'password',
      'password_too_short',
    ],
    ['1 typed character that NFKC makes 18', { password: 'ﷺ', password2: 'ﷺ' }, 'password', 'password_too_short'],
    [
      '14 emoji (28 UTF-16 units, 14 code points)',
      { password: '🦊'.repeat(14), password2: '🦊'.repeat(14) },
      'password',
      'password_too_short',
    ],
    [
      '257 code points',
      { password: 'x'.repeat(120) + 'y'.repeat(137), password2: 'x'.repeat(120) + 'y'.repeat(137) },
      'password',
      'password_too_long',
    ],
    [
      'a common password',
      { password: 'passwordpassword', password2: 'passwordpassword' },
      'password',
      'password_too_common',
    ],
    [
      'a common password in capitals',
      { password: 'QWERTYUIOP12345', password2: 'QWERTYUIOP12345' },
      'password',
      'password_too_common',
    ],
    [
      'a long keyboard walk',
      { password: 'qwertyuiopasdfgh', password2: 'qwertyuiopasdfgh' },
      'password',
      'password_too_common',
    ],
    [
      'a common word with digits',
      { password: 'password123456789', password2: 'password123456789' },
      'password',
      'password_too_common',
    ],
    [
      'the name and realm as the password',
      { name: 'Gwendolyn Marsh', password: 'gwendolyn marsh default', password2: 'gwendolyn marsh default' },
      'password',
      'password_too_similar',
    ],
    [
      'the email inside the password',
      {
        email: 'zebulon.quartz@example.com',
        password: 'Zebulon.Quartz@Example.com!',
        password2: 'Zebulon.Quartz@Example.com!',
      },
      'password',
      'password_too_similar',
    ],
    [
      'the realm as most of the password',
      { password: 'defaultrealmdefault', password2: 'defaultrealmdefault' },
      'password',
      'password_too_similar',
    ],
    ['a confirmation that differs', { password2: `${STRONG}!` }, 'password2', 'password_mismatch'],
  ])('refuses %s', async (_, patch, field, code) => {
    const input = { name: 'Test User', email: uniqueEmail('rule'), password: STRONG, password2: STRONG, ...patch };
    const p = await problemOf(h.caller().account.register(input));
    expect(p.status).toBe(422);
    expect(p.fields[field]).toBe(code);
  });

  it('accepts a passphrase that merely contains a word of the name or email', async () => {
    const r = await h.caller().account.register({
      name: 'Rosa Parks',
      email: uniqueEmail('rosa'),
      password: 'rosaline tractor sings at midnight',
      password2: 'rosaline tractor sings at midnight',
    });
    expect(r.user.name).toBe('Rosa Parks');
  });

  it('accepts 15 code points, 256 code points, spaces inside and a passphrase of any script', async () => {
    const long = `${STRONG} `.repeat(8).slice(0, 256);
    expect([...long]).toHaveLength(256);
    for (const password of [
      'ünïcødé-pässwör',
      long,
      '  padded both sides  ',
      'Съешь же ещё этих мягких булок',
      'my default account 2026',
    ]) {
      const r = await h
        .caller()
        .account.register({ name: 'Ok', email: uniqueEmail('ok'), password, password2: password });
      expect(r.user.name).toBe('Ok');
    }
  });
});
