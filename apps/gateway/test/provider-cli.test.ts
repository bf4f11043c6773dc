import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { upstreamProviders } from '@accounts/db';
import { seedDataDir } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { startGateway, TEST_PEPPER, TEST_SECRET_KEY, type Gateway } from './support/gateway.js';

// `npm run realm -- provider …`: an operator's upstream identity providers, on PostgreSQL (where
// every gateway sees a change at once), with a live gateway showing them on its sign-in page's list.
describe('the provider command', () => {
  let gw: Gateway | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'accounts-provider-cli-'));
  // A migrated database to start from (cli.test.ts covers a first command on an empty directory).
  beforeAll(() => seedDataDir(dir));
  afterAll(async () => {
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'adds, lists and removes providers, keeps their secrets sealed, and refuses what cannot work',
    { timeout: 240_000 },
    async () => {
      gw = await startGateway('postgres');
      const env = { DATABASE_URL: gw.db.url!, SECRET_KEY: TEST_SECRET_KEY, PASSWORD_PEPPER: TEST_PEPPER };
      const cli = (...args: string[]) => runCli(['realm', 'provider', ...args], env);

      const added = await cli(
        'add',
        'default',
        'corp',
        '--issuer',
        'https://login.corp.example/',
        '--client-id',
        'accounts-app',
        '--client-secret',
        'a-very-secret-secret',
        '--name',
        'Corp SSO',
        '--json',
      );
      expect(added.code, added.err).toBe(0);
      expect(JSON.parse(added.out)).toMatchObject({
        id: 'corp',
        kind: 'oidc',
        name: 'Corp SSO',
        issuer: 'https://login.corp.example',
        client_id: 'accounts-app',
        accept_upstream_mfa: false,
        callback_url: expect.stringMatching(/^http:\/\/localhost(:\d+)?\/users\/oauth\/corp\/callback$/),
      });
      // GitHub from its kind alone, its secret from a file (kept out of the shell's history).
      const secretFile = join(dir, 'gh-secret');
      writeFileSync(secretFile, 'gh-secret-value\n');
      const github = await cli(
        'add',
        'default',
        'github',
        '--kind',
        'github',
        '--client-id',
        'Iv1.x',
        '--client-secret-file',
        secretFile,
      );
      expect(github.code, github.err).toBe(0);
      expect(github.out).toContain('/users/oauth/github/callback');

      const listed = await cli('list', 'default', '--json');
      expect(listed.code, listed.err).toBe(0);
      expect((JSON.parse(listed.out) as { id: string; kind: string }[]).map((p) => [p.id, p.kind])).toEqual([
        ['corp', 'oidc'],
        ['github', 'github'],
      ]);
      expect(listed.out).not.toContain('secret');
      // Sealed under SECRET_KEY: neither secret is in the database as given.
      const rows = await gw.db.db.select().from(upstreamProviders);
      for (const row of rows) {
        expect(row.clientSecret).not.toContain('a-very-secret-secret');
        expect(row.clientSecret).not.toContain('gh-secret-value');
      }
      // The running gateway offers both at once.
      const offered = await gw.send('GET', '/trpc/upstream.providers');
      expect(offered.status, offered.text).toBe(200);
      expect(JSON.stringify(offered.json)).toContain('Corp SSO');

      const refusals: [string[], RegExp][] = [
        [
          ['add', 'default', 'plain', '--issuer', 'http://idp.example', '--client-id', 'c', '--client-secret', 's'],
          /https/,
        ],
        [
          ['add', 'default', 'corp', '--issuer', 'https://other.example', '--client-id', 'c', '--client-secret', 's'],
          /already/,
        ],
        [
          ['add', 'default', 'Bad_Id', '--issuer', 'https://idp.example', '--client-id', 'c', '--client-secret', 's'],
          /id/,
        ],
        [['add', 'default', 'x', '--kind', 'myspace', '--client-id', 'c', '--client-secret', 's'], /--kind/],
        [['add', 'default', 'y', '--issuer', 'https://idp.example', '--client-secret', 's'], /client-id/],
        [
          ['add', 'nowhere', 'z', '--issuer', 'https://idp.example', '--client-id', 'c', '--client-secret', 's'],
          /nowhere/,
        ],
        [['remove', 'default', 'never-added'], /never-added/],
      ];
      for (const [args, says] of refusals) {
        const refused = await cli(...args);
        expect({ args, code: refused.code }).toEqual({ args, code: 1 });
        expect(refused.err).toMatch(says);
      }

      const removed = await cli('remove', 'default', 'corp');
      expect(removed.code, removed.err).toBe(0);
      expect((JSON.parse((await cli('list', 'default', '--json')).out) as { id: string }[]).map((p) => p.id)).toEqual([
        'github',
      ]);
    },
  );
});
