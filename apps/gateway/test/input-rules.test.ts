import { testDrivers } from '@accounts/testing';
import { users } from '@accounts/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, STRONG, uniqueEmail, type Gateway } from './support/gateway.js';

// The password rule and the input rules, over real HTTP on both the form routes and /trpc.

const json = { 'content-type': 'application/json' };
const change = (current: string, next: string) => ({
  current_password: current,
  new_password: next,
  confirm_password: next,
});
const fieldCodes = (errors: { field: string; code: string }[]) =>
  Object.fromEntries(errors.map((e) => [e.field, e.code]));

describe.each(testDrivers())('password and input rules over HTTP on %s', (driver) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(driver);
  });
  afterAll(() => gw.close());
  const count = async () => (await gw.db.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]!.n;

  it('refuses long but easy passwords and passwords short as typed, creating nothing', async () => {
    const before = await count();
    const easy = [
      '123456789012345',
      'aaaaaaaaaaaaaaa',
      'qwertyuiopasdfgh',
      'abcdefghijklmnop',
      'password123456789',
      ' '.repeat(15),
    ];
    for (const password of easy) {
      const res = await gw.form('/users/register', registration(uniqueEmail(), password));
      expect(res.status, password).toBe(422);
      expect(fieldCodes(res.json.errors), password).toEqual({ password: 'password_too_common' });
    }
    for (const password of ['ﷺ', '㌀㌁㌂㌃']) {
      const res = await gw.form('/users/register', registration(uniqueEmail(), password));
      expect(res.status).toBe(422);
      expect(res.json.errors).toEqual([
        { field: 'password', code: 'password_too_short', message: 'Use at least 15 characters.', params: { min: 15 } },
      ]);
    }
    const trpc = await gw.send('POST', '/trpc/account.register', {
      headers: json,
      body: JSON.stringify(registration(uniqueEmail(), 'Password12345678!')),
    });
    expect(trpc.status).toBe(422);
    expect(trpc.json.error.data.problem.errors).toEqual([
      { field: 'password', code: 'password_too_common', message: expect.stringMatching(/easy to guess/) },
    ]);
    expect(await count()).toBe(before);
  });

  it('lets a passphrase contain a word of the name, and refuses one that is weak without it', async () => {
    const ok = await gw.form(
      '/users/register',
      registration(uniqueEmail('rosa'), 'rosaline tractor sings at midnight', 'Rosa Parks'),
    );
    expect(ok.status).toBe(201);
    const similar = await gw.form(
      '/users/register',
      registration(uniqueEmail('rosa'), 'RosaParks19131955', 'Rosa Parks'),
      { headers: { 'accept-language': 'de' } },
    );
    expect(similar.status).toBe(422);
    expect(similar.json.errors).toEqual([
      { field: 'password', code: 'password_too_similar', message: expect.stringMatching(/^Ohne Ihren Namen/) },
    ]);
  });

  it('judges a new password on change with the account as context, and keeps hashes compatible across Unicode forms', async () => {
    const nfd = 'crème brûlée über café'.normalize('NFD');
    const reg = await gw.form('/users/register', registration(uniqueEmail(), nfd, 'Gwendolyn Smith'));
    expect(reg.status).toBe(201);
    const auth = { cookie: reg.cookie! };
    const weak = await gw.form('/users/change_password', change(nfd.normalize('NFC'), 'gwendolyn smith default'), {
      headers: auth,
    });
    expect(weak.status).toBe(422);
    expect(fieldCodes(weak.json.errors)).toEqual({ new_password: 'password_too_similar' });
    const ok = await gw.form('/users/change_password', change(nfd.normalize('NFC'), STRONG), { headers: auth });
    expect(ok.status).toBe(200);
  });

  it('refuses invisible, bidi-control and mark-stacked names, and counts names in grapheme clusters', async () => {
    const before = await count();
    for (const name of [
      '\u200b',
      '\u3164',
      'Ann\u202eevil',
      'Ann\u2066x\u2069',
      `Z${'\u0300'.repeat(20)}algo`,
      'x'.repeat(151),
    ]) {
      const res = await gw.form('/users/register', registration(uniqueEmail(), STRONG, name));
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(['name']);
    }
    expect(await count()).toBe(before);
    // 'नि' is two code points and one cluster: 150 of them are 150 characters to a reader.
    const long = 'नि'.repeat(150);
    const ok = await gw.form('/users/register', registration(uniqueEmail(), STRONG, long));
    expect(ok.status).toBe(201);
    expect(ok.json.user.name).toBe(long);
    const over = await gw.form('/users/register', registration(uniqueEmail(), STRONG, `${long}नि`));
    expect(over.json.errors).toEqual([
      { field: 'name', code: 'name_too_long', message: 'Use at most 150 characters.', params: { max: 150 } },
    ]);
  });

  it('refuses an email whose local part is over 64 octets', async () => {
    const res = await gw.form('/users/register', registration(`${'a'.repeat(65)}@example.com`));
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([
      {
        field: 'email',
        code: 'email_local_too_long',
        message: 'The part before the @ must be at most 64 characters.',
        params: { max: 64 },
      },
    ]);
    expect((await gw.form('/users/register', registration(`${'a'.repeat(64)}@example.com`))).status).toBe(201);
  });

  it('tells a /trpc client with the wrong content type to send JSON, in its language', async () => {
    const form = await gw.send('POST', '/trpc/account.signIn', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a',
    });
    expect(form.status).toBe(415);
    expect(form.json.error.data.problem).toMatchObject({
      status: 415,
      code: 'unsupported_media_type_json',
      title: 'Send the body as application/json.',
    });
    expect(form.text).not.toMatch(/form-urlencoded/);
    const de = await gw.send('POST', '/trpc/account.signOut', {
      headers: { 'content-type': 'text/plain', 'accept-language': 'de' },
      body: '{}',
    });
    expect(de.status).toBe(415);
    expect(de.json.error.data.problem.title).toBe('Senden Sie den Inhalt als application/json.');
    // The form routes keep asking for form bodies.
    const onForm = await gw.send('POST', '/users/login', { headers: json, body: '{}' });
    expect(onForm.json).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      title: 'Send the body as application/x-www-form-urlencoded.',
    });
  });
});
