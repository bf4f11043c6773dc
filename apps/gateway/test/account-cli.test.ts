import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRealm, createVault, DEFAULT_ACCOUNT_CONFIG, findRealm } from '@accounts/api';
import { createSession } from '@accounts/api/testing';
import {
  accountEvents,
  mailOutbox,
  openDatabase,
  passkeys,
  pendingSignIns,
  recoveryCodes,
  sessions,
  totpCredentials,
  users,
} from '@accounts/db';
import { and, eq } from 'drizzle-orm';
import { seedDataDir } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { registration, startGateway, STRONG, uniqueEmail } from './support/gateway.js';
import { addPasskey, passkeySignIn } from './support/passkeys.js';
import { pendingCookieOf, turnOnTwoStep } from './support/two-step.js';

describe('the account command on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-account-cli-'));
  beforeAll(() => seedDataDir(dir));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'lists, disables, enables and ends sessions; refuses unknown realms and accounts clearly',
    { timeout: 240_000 },
    async () => {
      const email = uniqueEmail('ops');
      const setup = await openDatabase({ dataDir: dir });
      try {
        await setup.migrate();
        const realm = (await findRealm(setup.db, 'default'))!;
        const [user] = await setup.db
          .insert(users)
          .values({ realmId: realm.id, name: 'Op Erator', email, passwordHash: 'not a real hash' })
          .returning();
        await createSession(setup.db, user!.id, DEFAULT_ACCOUNT_CONFIG);
        await createSession(setup.db, user!.id, DEFAULT_ACCOUNT_CONFIG);
      } finally {
        await setup.close();
      }
      const listed = await runCli(['account', 'list', 'default'], { DATA_DIR: dir });
      expect(listed.code).toBe(0);
      expect(listed.out).toMatch(
        new RegExp(`^${email.replace(/\./g, '\\.')}\\tOp Erator\\t\\S+\\tactive\\t2 sessions$`, 'm'),
      );
      const disabled = await runCli(['account', 'disable', 'default', email.toUpperCase()], { DATA_DIR: dir });
      expect(disabled.out).toContain(`in realm "default": disabled; 2 sessions ended`);
      expect((await runCli(['account', 'list', 'default'], { DATA_DIR: dir })).out).toMatch(
        /\tdisabled \S+\t0 sessions/,
      );
      expect((await runCli(['account', 'enable', 'default', email], { DATA_DIR: dir })).out).toContain(
        `${email} in realm "default": enabled`,
      );
      expect((await runCli(['account', 'revoke-sessions', 'default', email], { DATA_DIR: dir })).out).toContain(
        '0 sessions ended',
      );

      const unknown = await runCli(['account', 'disable', 'default', 'nobody@example.com'], { DATA_DIR: dir });
      expect(unknown).toMatchObject({ code: 1 });
      expect(unknown.err).toContain('There is no account nobody@example.com in realm "default".');
      expect((await runCli(['account', 'list', 'nope'], { DATA_DIR: dir })).err).toContain('There is no realm "nope".');
      const usage = await runCli(['account', 'disable', 'default'], { DATA_DIR: dir });
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('npm run account -- disable <realm> <email>');
    },
  );

  it(
    'reset-second-factor turns two-step sign-in off (the app and every passkey), ends every session and records two_step_reset',
    { timeout: 240_000 },
    async () => {
      const email = uniqueEmail('lostphone');
      const setup = await openDatabase({ dataDir: dir });
      let userId: string;
      try {
        await setup.migrate();
        const realm = (await findRealm(setup.db, 'default'))!;
        const [user] = await setup.db
          .insert(users)
          .values({ realmId: realm.id, name: 'Lost Phone', email, passwordHash: 'not a real hash', twoStep: true })
          .returning();
        userId = user!.id;
        // What an account with two-step sign-in holds (sealed and digested values need no real key here).
        await setup.db.insert(totpCredentials).values({ userId, secret: 'v1.sealed.secret.tag', lastStep: 1 });
        await setup.db.insert(passkeys).values({
          userId,
          credentialId: 'Y3JlZGVudGlhbA',
          publicKey: 'a2V5',
          aaguid: '00000000-0000-0000-0000-000000000000',
          deviceType: 'multiDevice',
          backedUp: true,
          name: 'Phone',
        });
        await setup.db.insert(recoveryCodes).values([
          { userId, digest: 'a'.repeat(64) },
          { userId, digest: 'b'.repeat(64) },
        ]);
        await setup.db
          .insert(pendingSignIns)
          .values({ realmId: realm.id, userId, tokenHash: 'c'.repeat(64), expiresAt: new Date(Date.now() + 60_000) });
        await createSession(setup.db, userId, DEFAULT_ACCOUNT_CONFIG);
        await createSession(setup.db, userId, DEFAULT_ACCOUNT_CONFIG);
      } finally {
        await setup.close();
      }
      const reset = await runCli(['account', 'reset-second-factor', 'default', email.toUpperCase()], { DATA_DIR: dir });
      expect(reset).toMatchObject({ code: 0 });
      expect(reset.out).toContain(`in realm "default": two-step sign-in turned off; 2 sessions ended`);

      const check = await openDatabase({ dataDir: dir });
      try {
        const [user] = await check.db.select().from(users).where(eq(users.id, userId));
        expect(user!.twoStep).toBe(false);
        for (const table of [totpCredentials, passkeys, recoveryCodes, pendingSignIns, sessions])
          expect(await check.db.select().from(table).where(eq(table.userId, userId))).toEqual([]);
        const events = await check.db
          .select()
          .from(accountEvents)
          .where(and(eq(accountEvents.userId, userId), eq(accountEvents.type, 'two_step_reset')));
        expect(events).toHaveLength(1);
        // The operator's: no client address.
        expect(events[0]!.clientIp).toBeNull();
      } finally {
        await check.close();
      }
      // Again: nothing to turn off, said so.
      expect((await runCli(['account', 'reset-second-factor', 'default', email], { DATA_DIR: dir })).out).toContain(
        'two-step sign-in was not on; 0 sessions ended',
      );

      const unknown = await runCli(['account', 'reset-second-factor', 'default', 'nobody@example.com'], {
        DATA_DIR: dir,
      });
      expect(unknown).toMatchObject({ code: 1 });
      expect(unknown.err).toContain('There is no account nobody@example.com in realm "default".');
      const noRealm = await runCli(['account', 'reset-second-factor', 'nope', email], { DATA_DIR: dir });
      expect(noRealm.code).toBe(1);
      expect(noRealm.err).toContain('There is no realm "nope".');
      const usage = await runCli(['account', 'reset-second-factor', 'default'], { DATA_DIR: dir });
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('npm run account -- reset-second-factor <realm> <email>');
    },
  );

  it(
    "disable and reset-second-factor tell the owner, at a confirmed address, in the owner's language, with links to the realm's origin",
    { timeout: 240_000 },
    async () => {
      const german = uniqueEmail('told-de');
      const french = uniqueEmail('told-fr');
      const unconfirmed = uniqueEmail('untold');
      const setup = await openDatabase({ dataDir: dir });
      try {
        await setup.migrate();
        if (!(await findRealm(setup.db, 'notify'))) await createRealm(setup.db, 'notify', 'Notify Inc');
        const realm = (await findRealm(setup.db, 'notify'))!;
        const account = (email: string, locale: string, confirmed: boolean) => ({
          realmId: realm.id,
          name: 'Owner',
          email,
          passwordHash: 'not a real hash',
          locale,
          twoStep: true,
          emailVerifiedAt: confirmed ? new Date() : null,
        });
        await setup.db
          .insert(users)
          .values([account(german, 'de', true), account(french, 'fr', true), account(unconfirmed, 'en', false)]);
      } finally {
        await setup.close();
      }
      const env = { DATA_DIR: dir, PUBLIC_URL: 'https://accounts.example.org' };
      const disabled = await runCli(['account', 'disable', 'notify', german], env);
      expect(disabled.out).toContain('disabled; 0 sessions ended; the owner was told by mail');
      const reset = await runCli(['account', 'reset-second-factor', 'notify', french], env);
      expect(reset.out).toContain('two-step sign-in turned off; 0 sessions ended; the owner was told by mail');
      const untold = await runCli(['account', 'disable', 'notify', unconfirmed], env);
      expect(untold.out).toContain('the owner was not mailed (no confirmed address, or its mail cap was reached)');
      // Again: nothing happened, nothing is said.
      expect((await runCli(['account', 'disable', 'notify', german], env)).out).toMatch(
        /was already disabled; 0 sessions ended\n$/,
      );

      const check = await openDatabase({ dataDir: dir });
      try {
        const mails = async (email: string) =>
          await check.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
        expect(await mails(german)).toEqual([
          expect.objectContaining({
            template: 'account_disabled',
            locale: 'de',
            payload: expect.objectContaining({ realmName: 'Notify Inc', name: 'Owner' }),
          }),
        ]);
        expect(await mails(french)).toEqual([
          expect.objectContaining({
            template: 'two_step_reset',
            locale: 'fr',
            payload: expect.objectContaining({
              settingsLink: 'https://notify.accounts.example.org/settings/two-step',
              recoverLink: 'https://notify.accounts.example.org/forgot-password',
            }),
          }),
        ]);
        expect(await mails(unconfirmed)).toEqual([]);
      } finally {
        await check.close();
      }
    },
  );

  it(
    'says clearly that the server must be stopped while it holds the data directory',
    { timeout: 120_000 },
    async () => {
      const held = await openDatabase({ dataDir: dir });
      try {
        const r = await runCli(['account', 'list', 'default'], { DATA_DIR: dir });
        expect(r.code).toBe(1);
        expect(r.err).toContain('is in use by another process (most likely the running server). Stop the server first');
      } finally {
        await held.close();
      }
    },
  );
});

if (process.env.TEST_DATABASE_URL) {
  describe('the account command on PostgreSQL, while the server runs', () => {
    it(
      'disables an account: its sessions end at once and sign-in answers as a wrong password; enable and revoke-sessions',
      { timeout: 120_000 },
      async () => {
        const gw = await startGateway('postgres');
        try {
          const env = { DATABASE_URL: gw.db.url! };
          const email = uniqueEmail('pgops');
          const reg = await gw.form('/users/register', registration(email));
          const cookie = { cookie: reg.cookie! };
          expect((await gw.send('GET', '/users/me', { headers: cookie })).status).toBe(200);

          const disabled = await runCli(['account', 'disable', 'default', email], env);
          expect(disabled).toMatchObject({ code: 0 });
          expect(disabled.out).toContain('disabled; 1 session ended');
          expect((await gw.send('GET', '/users/me', { headers: cookie })).status).toBe(401);
          const right = await gw.form('/users/login', { email, password: STRONG });
          const wrong = await gw.form('/users/login', { email, password: 'not the password at all' });
          expect(right.status).toBe(422);
          expect(right.json).toEqual(wrong.json);

          expect((await runCli(['account', 'enable', 'default', email], env)).out).toContain('enabled');
          const back = await gw.form('/users/login', { email, password: STRONG });
          expect(back.status).toBe(200);
          expect((await runCli(['account', 'revoke-sessions', 'default', email], env)).out).toContain(
            '1 session ended',
          );
          expect((await gw.send('GET', '/users/me', { headers: { cookie: back.cookie! } })).status).toBe(401);
          const [user] = await gw.db.db.select().from(users).where(eq(users.email, email));
          expect(await gw.db.db.select().from(sessions).where(eq(sessions.userId, user!.id))).toEqual([]);
          expect((await runCli(['account', 'list', 'default'], env)).out).toContain(`${email}\tTest User\t`);
        } finally {
          await gw.close();
        }
      },
    );

    it(
      'reset-second-factor: the sessions end at once, a pending sign-in is void, and the password alone signs in again',
      { timeout: 120_000 },
      async () => {
        const gw = await startGateway('postgres');
        try {
          const env = { DATABASE_URL: gw.db.url! };
          const email = uniqueEmail('pgreset');
          const reg = await gw.form('/users/register', registration(email));
          const session = { cookie: reg.cookie! };
          const { app } = await turnOnTwoStep(gw, session);
          const { authenticator } = await addPasskey(gw, session);
          const asked = await gw.form('/users/login', { email, password: STRONG });
          expect(asked.json).toMatchObject({
            code: 'second_factor_required',
            methods: ['passkey', 'totp', 'recovery_code'],
          });

          const reset = await runCli(['account', 'reset-second-factor', 'default', email], env);
          expect(reset).toMatchObject({ code: 0 });
          expect(reset.out).toContain(`${email} in realm "default": two-step sign-in turned off; 1 session ended`);
          expect((await gw.send('GET', '/users/me', { headers: session })).status).toBe(401);
          expect(
            (
              await gw.form(
                '/users/login/second_factor',
                { code: await app.next() },
                { headers: { cookie: pendingCookieOf(asked)! } },
              )
            ).json.code,
          ).toBe('sign_in_expired');
          const back = await gw.form('/users/login', { email, password: STRONG });
          expect(back.status).toBe(200);
          const owner = { cookie: back.cookie! };
          expect((await gw.send('GET', '/users/me', { headers: owner })).json.twoStep).toEqual({
            enabled: false,
            methods: [],
            recoveryCodesLeft: 0,
          });
          // The passkey went with it: it neither signs in nor is listed.
          expect((await passkeySignIn(gw, authenticator)).res.json.code).toBe('passkey_rejected');
          expect((await gw.send('GET', '/users/passkeys', { headers: owner })).json).toEqual({ passkeys: [] });
          // The owner sees it on the activity page.
          const types = (await gw.send('GET', '/users/activity', { headers: owner })).json.events.map(
            (e: { type: string }) => e.type,
          );
          expect(types).toContain('two_step_reset');

          const unknown = await runCli(['account', 'reset-second-factor', 'default', 'nobody@example.com'], env);
          expect(unknown).toMatchObject({ code: 1 });
          expect(unknown.err).toContain('There is no account nobody@example.com in realm "default".');
        } finally {
          await gw.close();
        }
      },
    );
  });
}

describe('the realm-wide and secret commands on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-secret-cli-'));
  beforeAll(() => seedDataDir(dir));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const OLD_KEY = 'a1'.repeat(32);
  const NEW_KEY = 'b2'.repeat(32);

  it(
    "ends every session of one realm only, and seals the apps' secrets again under a rotated SECRET_KEY",
    { timeout: 240_000 },
    async () => {
      const setup = await openDatabase({ dataDir: dir });
      let userId: string;
      try {
        await setup.migrate();
        await createRealm(setup.db, 'acme', 'Acme Inc');
        const ids: string[] = [];
        for (const slug of ['default', 'default', 'acme']) {
          const realm = (await findRealm(setup.db, slug))!;
          const [user] = await setup.db
            .insert(users)
            .values({ realmId: realm.id, name: 'Op', email: uniqueEmail('realm-cli'), passwordHash: 'not a real hash' })
            .returning();
          await createSession(setup.db, user!.id, DEFAULT_ACCOUNT_CONFIG);
          ids.push(user!.id);
        }
        userId = ids[0]!;
        // An authenticator app's secret sealed under the key about to be replaced.
        const sealed = createVault(Buffer.from(OLD_KEY, 'hex')).seal('JBSWY3DPEHPK3PXP', userId);
        await setup.db.insert(totpCredentials).values({ userId, secret: sealed });
      } finally {
        await setup.close();
      }

      const ended = await runCli(['account', 'revoke-realm-sessions', 'default'], { DATA_DIR: dir });
      expect(ended.code).toBe(0);
      expect(ended.out).toContain('realm "default": 2 sessions ended');
      expect((await runCli(['account', 'list', 'acme'], { DATA_DIR: dir })).out).toMatch(/\t1 session$/m);

      const env = { DATA_DIR: dir, SECRET_KEY: NEW_KEY, SECRET_KEY_PREVIOUS: OLD_KEY };
      const rotated = await runCli(['account', 'rotate-secrets'], env);
      expect(rotated.code).toBe(0);
      expect(rotated.out).toContain('authenticator-app secrets sealed again under the current SECRET_KEY: 1');
      expect((await runCli(['account', 'rotate-secrets'], env)).out).toContain(
        'authenticator-app secrets sealed again under the current SECRET_KEY: 0',
      );
      const check = await openDatabase({ dataDir: dir });
      try {
        const [row] = await check.db.select().from(totpCredentials).where(eq(totpCredentials.userId, userId!));
        // The new key alone opens it now.
        expect(createVault(Buffer.from(NEW_KEY, 'hex')).open(row!.secret!, userId!)).toBe('JBSWY3DPEHPK3PXP');
      } finally {
        await check.close();
      }
    },
  );
});
