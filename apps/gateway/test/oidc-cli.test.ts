import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDataDir } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { TEST_PEPPER, TEST_SECRET_KEY, type Gateway } from './support/gateway.js';
import { issuerOf, startOidcGateway } from './support/oidc.js';

// `npm run client`: registering apps, listing, removing them, new secrets and new signing keys.
describe('the client command on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-client-cli-'));
  // A migrated database to start from (cli.test.ts covers a first command on an empty directory).
  beforeAll(() => seedDataDir(dir));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => runCli(['client', ...args], { DATA_DIR: dir });

  it(
    'registers, lists, rotates and removes apps; refuses bad addresses and unknown realms clearly',
    { timeout: 240_000 },
    async () => {
      const created = await cli(
        'create',
        'default',
        '--name',
        'Shop',
        '--redirect-uri',
        'https://shop.example/cb',
        '--redirect-uri',
        'http://localhost:8080/cb',
        '--post-logout-redirect-uri',
        'https://shop.example/',
        '--json',
      );
      expect(created.code, created.err).toBe(0);
      // Exactly one JSON object on stdout.
      const app = JSON.parse(created.out) as Record<string, unknown>;
      expect(created.out.trim().split('\n')).toHaveLength(1);
      expect(app).toMatchObject({
        client_id: expect.stringMatching(/^[\w-]{22}$/),
        client_secret: expect.stringMatching(/^[\w-]{43}$/),
        name: 'Shop',
        public: false,
        first_party: false,
        redirect_uris: ['https://shop.example/cb', 'http://localhost:8080/cb'],
      });

      const spa = await cli(
        'create',
        'default',
        '--name',
        'SPA',
        '--redirect-uri',
        'http://127.0.0.1:5173/',
        '--public',
        '--first-party',
      );
      expect(spa.code, spa.err).toBe(0);
      expect(spa.out).toMatch(/^client_id {6}[\w-]{22}$/m);
      expect(spa.out).not.toContain('client_secret');

      const plain = await cli('create', 'default', '--name', 'Bad', '--redirect-uri', 'http://shop.example/cb');
      expect(plain.code).toBe(1);
      expect(plain.err).toContain('must use https (plain http only on localhost, 127.0.0.1 or [::1])');
      expect((await cli('create', 'nope', '--name', 'X', '--redirect-uri', 'https://x.example/cb')).err).toContain(
        'There is no realm "nope".',
      );
      const usage = await cli('create', 'default', '--name', 'X', '--bogus');
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('npm run client -- create <realm> --name <name> --redirect-uri <uri>');

      const listed = await cli('list', 'default', '--json');
      const apps = JSON.parse(listed.out) as { client_id: string; name: string; client_secret?: string }[];
      expect(apps.map((a) => a.name)).toEqual(['Shop', 'SPA']);
      expect(listed.out).not.toContain(String(app.client_secret));
      expect((await cli('list', 'default')).out).toMatch(
        new RegExp(`^${String(app.client_id)}\\tShop\\tconfidential\\tthird-party\\t`, 'm'),
      );

      const rotated = await cli('rotate-secret', 'default', String(app.client_id), '--json');
      expect(JSON.parse(rotated.out)).toEqual({
        client_id: app.client_id,
        client_secret: expect.stringMatching(/^[\w-]{43}$/),
      });
      expect(JSON.parse(rotated.out).client_secret).not.toBe(app.client_secret);

      expect((await cli('rotate-keys', 'default')).out).toMatch(
        /ID tokens are signed with the new key [\w-]+ from now on/,
      );
      const removed = await cli('delete', 'default', String(app.client_id));
      expect(removed.out).toContain('removed from realm "default", with its grants and tokens');
      expect((await cli('delete', 'default', String(app.client_id))).err).toContain(
        `There is no app ${String(app.client_id)} in realm "default".`,
      );
    },
  );
});

// With PostgreSQL the command works while gateways run, and they see each change at once.
describe.runIf(process.env.TEST_DATABASE_URL)('the client command beside a running gateway', () => {
  let gw: Gateway;
  afterAll(() => gw?.close());

  it(
    'a registered app authenticates at once; a rotated secret and a removed app are refused at once; new keys publish at once',
    { timeout: 240_000 },
    async () => {
      gw = await startOidcGateway('postgres');
      const env = { DATABASE_URL: gw.db.url!, SECRET_KEY: TEST_SECRET_KEY, PASSWORD_PEPPER: TEST_PEPPER };
      const cli = (...args: string[]) => runCli(['client', ...args], env);
      // What a --json command printed; a failure says how the command ended instead of "no JSON".
      const json = async (ran: ReturnType<typeof cli>) => {
        const { code, out, err } = await ran;
        expect(code, err).toBe(0);
        return JSON.parse(out) as Record<string, string>;
      };
      const token = (clientId: string, secret: string) =>
        gw.form(
          '/oauth2/token',
          {
            grant_type: 'authorization_code',
            code: 'nope',
            redirect_uri: 'https://a.example/cb',
            code_verifier: 'v'.repeat(43),
          },
          {
            host: 'acme.localhost',
            headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
          },
        );
      const made = (await json(
        cli('create', 'acme', '--name', 'Live', '--redirect-uri', 'https://a.example/cb', '--json'),
      )) as { client_id: string; client_secret: string };
      // Authenticated (the code is what is wrong), not an unknown client.
      expect((await token(made.client_id, made.client_secret)).json.error).toBe('invalid_grant');
      const { client_secret: next } = (await json(cli('rotate-secret', 'acme', made.client_id, '--json'))) as {
        client_secret: string;
      };
      expect((await token(made.client_id, made.client_secret)).json.error).toBe('invalid_client');
      expect((await token(made.client_id, next)).json.error).toBe('invalid_grant');

      const before = (await gw.send('GET', '/oauth2/jwks', { host: 'acme.localhost' })).json.keys as { kid: string }[];
      expect(before).toHaveLength(1);
      const rotated = await cli('rotate-keys', 'acme');
      const kid = /new key ([\w-]+)/.exec(rotated.out)![1];
      const after = (await gw.send('GET', '/oauth2/jwks', { host: 'acme.localhost' })).json.keys as { kid: string }[];
      expect(after.map((k) => k.kid)).toEqual([kid, before[0]!.kid]);
      expect(new URL(issuerOf(gw, 'acme')).hostname).toBe('acme.localhost');

      await cli('delete', 'acme', made.client_id);
      expect((await token(made.client_id, next)).json.error).toBe('invalid_client');
    },
  );
});
