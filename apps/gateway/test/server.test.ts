import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHasher, createRealm } from '@accounts/api';
import { DataDirBusyError, openDatabase } from '@accounts/db';
import { createTestDatabase, httpClient } from '@accounts/testing';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer } from '../src/server.js';
import { TEST_SECRET_KEY } from './support/gateway.js';

// createServer as main.ts uses it: it opens what the configuration names, and stop() closes it.
const settings = (env: Record<string, string>) =>
  loadConfig({
    PORT: '0',
    BCRYPT_COST: '4',
    HASH_WORKERS: '1',
    LOG_LEVEL: 'silent',
    SERVE_WEB: 'false',
    MAIL_POLL_MS: '0',
    PURGE_INTERVAL_SECONDS: '0',
    SECRET_KEY: TEST_SECRET_KEY,
    ...env,
  });

describe('createServer', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'accounts-server-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('opens and migrates the configured database, serves, and on stop closes what it opened', async () => {
    const dir = dataDir();
    const server = await createServer(settings({ DATA_DIR: dir }));
    const address = await server.start();
    const client = httpClient(Number(new URL(address).port));
    try {
      expect((await client.send('GET', '/readyz')).status).toBe(200);
      expect(
        (await client.form('/users/login', { email: 'nobody@example.com', password: 'not the password' })).status,
      ).toBe(422);
    } finally {
      await client.close();
    }
    // A second stop waits for the same one.
    await Promise.all([server.stop(), server.stop()]);
    expect(server.app.draining).toBe(true);
    // The data directory's lock is released: a command opens it at once.
    const again = await openDatabase({ dataDir: dir, lockWaitMs: 0 });
    await again.close();
  });

  it('takes the lock wait and the migrations from its configuration', async () => {
    const dir = dataDir();
    const holder = await createServer(settings({ DATA_DIR: dir }));
    try {
      const started = Date.now();
      await expect(createServer(settings({ DATA_DIR: dir, DATA_DIR_LOCK_WAIT_MS: '0' }))).rejects.toBeInstanceOf(
        DataDirBusyError,
      );
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await holder.stop();
    }
    // Migrations from a directory without any: the start fails, and lets go of the directory.
    await expect(
      createServer(settings({ DATA_DIR: dir, MIGRATIONS_DIR: join(dir, 'no-migrations') })),
    ).rejects.toThrow();
    const again = await openDatabase({ dataDir: dir, lockWaitMs: 0 });
    await again.close();
  });

  it('leaves a database and a hashing pool it was given open', async () => {
    const db = await createTestDatabase('pglite');
    await createRealm(db.db, 'acme', 'Acme Inc');
    const hasher = await createHasher({ cost: 4, pepper: 'server-test-pepper-0123456789', workers: 1 });
    try {
      const server = await createServer(settings({}), { database: db, hasher });
      await server.start();
      await server.stop();
      expect(await db.db.execute(sql`select 1 as one`)).toBeTruthy();
      expect(await hasher.hash('still running')).toContain('$2b$04$');
    } finally {
      await hasher.close();
      await db.close();
    }
  });
});
