import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@accounts/db';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('the realm command on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The first command creates the database (initdb in a child process): slow on a busy machine.
  it(
    'creates, lists and renames realms, and refuses a duplicate, a bad slug or an unknown realm with a clear message',
    { timeout: 180_000 },
    async () => {
      const created = await runCli(['realm', 'create', 'acme', 'Acme Inc'], { DATA_DIR: dir });
      expect(created).toMatchObject({ code: 0 });
      expect(created.out).toContain('created realm "acme" (Acme Inc): http://acme.localhost:3000/');
      const listed = await runCli(['realm', 'list'], { DATA_DIR: dir });
      expect(listed.out.split('\n')).toEqual(
        expect.arrayContaining(['default\t(unnamed: shown as "Accounts", SERVICE_NAME)', 'acme\tAcme Inc']),
      );
      // A name for the default realm (and a new one for another), which people then see.
      const renamed = await runCli(['realm', 'rename', 'default', 'Example Corp'], { DATA_DIR: dir });
      expect(renamed).toMatchObject({ code: 0, out: 'realm "default" is now shown as "Example Corp"\n' });
      await runCli(['realm', 'rename', 'acme', 'Acme Group'], { DATA_DIR: dir });
      const relisted = await runCli(['realm', 'list'], { DATA_DIR: dir });
      expect(relisted.out.split('\n')).toEqual(expect.arrayContaining(['default\tExample Corp', 'acme\tAcme Group']));
      const nowhere = await runCli(['realm', 'rename', 'nowhere', 'X'], { DATA_DIR: dir });
      expect(nowhere).toMatchObject({ code: 1 });
      expect(nowhere.err).toContain('There is no realm "nowhere".');
      const blank = await runCli(['realm', 'rename', 'acme', '  '], { DATA_DIR: dir });
      expect(blank.code).toBe(1);
      expect((await runCli(['realm', 'list'], { DATA_DIR: dir })).out).toContain('acme\tAcme Group');
      const dup = await runCli(['realm', 'create', 'acme', 'Again'], { DATA_DIR: dir });
      expect(dup.code).toBe(1);
      expect(dup.err).toContain('A realm "acme" already exists.');
      const bad = await runCli(['realm', 'create', 'Not_A_Label!', 'X'], { DATA_DIR: dir });
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('DNS label');
      const usage = await runCli(['realm'], { DATA_DIR: dir });
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('npm run realm -- create');
    },
  );

  it('says clearly when the running server holds the data directory', async () => {
    const held = await openDatabase({ dataDir: dir });
    try {
      const r = await runCli(['realm', 'create', 'later', 'Later'], { DATA_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        `The data directory ${dir} is in use by another process (most likely the running server)`,
      );
    } finally {
      await held.close();
    }
  });
});

if (process.env.TEST_DATABASE_URL) {
  describe('the realm command on PostgreSQL', () => {
    it('creates a realm on the database of DATABASE_URL', async () => {
      const { createTestDatabase } = await import('@accounts/db/testing');
      const db = await createTestDatabase('postgres');
      try {
        const r = await runCli(['realm', 'create', 'pgrealm', 'On Postgres'], { DATABASE_URL: db.url! });
        expect(r.code).toBe(0);
        const { findRealm } = await import('@accounts/api');
        expect((await findRealm(db.db, 'pgrealm'))?.name).toBe('On Postgres');
      } finally {
        await db.close();
      }
    });
  });
}
