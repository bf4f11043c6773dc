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
    'creates and lists realms, and refuses a duplicate or a bad slug with a clear message',
    { timeout: 180_000 },
    async () => {
      const created = await runCli(['realm', 'create', 'acme', 'Acme Inc'], { DATA_DIR: dir });
      expect(created).toMatchObject({ code: 0 });
      expect(created.out).toContain('created realm "acme" (Acme Inc): http://acme.localhost:3000/');
      const listed = await runCli(['realm', 'list'], { DATA_DIR: dir });
      expect(listed.out.split('\n')).toEqual(expect.arrayContaining(['default\tDefault', 'acme\tAcme Inc']));
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
