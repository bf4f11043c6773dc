import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHasher, createRealm, pepperId, PUBLIC_DEFAULT_PEPPER } from '@accounts/api';
import { users } from '@accounts/db';
import { Writable } from 'node:stream';
import { DataDirBusyError, openDatabase } from '@accounts/db';
import { createTestDatabase, httpClient, seedDataDir, type Client } from '@accounts/testing';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { PEPPER_FILE, SECRET_KEY_FILE } from '../src/secret-key.js';
import { createServer, type Server } from '../src/server.js';
import { registration, SEED_HEADERS, STRONG, TEST_PEPPER, TEST_SECRET_KEY, uniqueEmail } from './support/gateway.js';
import { spawnGateway } from './support/process.js';
import { pendingCookieOf, turnOnTwoStep } from './support/two-step.js';

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
    PASSWORD_PEPPER: TEST_PEPPER,
    ...env,
  });

/**
 * Data directories for the calling `describe`, removed after each test: empty ones (a first start), or
 * seeded ones that hold a migrated database already (for tests whose subject is not the database).
 */
function tempDataDirs(prefix: string) {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const seededDataDir = async () => {
    const dir = dataDir();
    await seedDataDir(dir);
    return dir;
  };
  return { dataDir, seededDataDir };
}

describe('createServer', () => {
  const { dataDir } = tempDataDirs('accounts-server-');

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

// SECRET_KEY at start-up: what seals the authenticator apps' secrets and digests the recovery
// codes. Given, generated into DATA_DIR for the embedded database, or required with DATABASE_URL.
describe('SECRET_KEY at start-up', () => {
  const { dataDir, seededDataDir } = tempDataDirs('accounts-secret-key-');

  /** A started server and a client with the seed's form headers; `done` stops both. */
  async function serve(
    env: Record<string, string>,
  ): Promise<{ server: Server; client: Client; done: () => Promise<void> }> {
    const server = await createServer(settings(env));
    const address = await server.start();
    const client = httpClient(Number(new URL(address).port), { formHeaders: SEED_HEADERS });
    return {
      server,
      client,
      done: async () => {
        await client.close();
        await server.stop();
      },
    };
  }

  it(
    'with the embedded database and none set, generates one into DATA_DIR (owner-only) and uses it again after a restart',
    { timeout: 240_000 },
    async () => {
      const dir = await seededDataDir();
      const file = join(dir, SECRET_KEY_FILE);
      const email = uniqueEmail('restart');
      // SECRET_KEY empty is SECRET_KEY unset.
      const first = await serve({ DATA_DIR: dir, SECRET_KEY: '' });
      let app: Awaited<ReturnType<typeof turnOnTwoStep>>['app'];
      let recoveryCodes: string[];
      try {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const reg = await first.client.form('/users/register', registration(email));
        expect(reg.status).toBe(201);
        ({ app, recoveryCodes } = await turnOnTwoStep(first.client, { cookie: reg.cookie! }));
      } finally {
        await first.done();
      }
      const key = readFileSync(file, 'utf8');
      expect(key).toMatch(/^[0-9a-f]{64}\n$/);

      // The restart reads the same key: the sealed secret opens and the recovery codes' digests match.
      const second = await serve({ DATA_DIR: dir, SECRET_KEY: '' });
      try {
        expect(readFileSync(file, 'utf8')).toBe(key);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        for (const code of [await app.next(), recoveryCodes[0]!]) {
          const asked = await second.client.form('/users/login', { email, password: STRONG });
          expect(asked.json.code).toBe('second_factor_required');
          const done = await second.client.form(
            '/users/login/second_factor',
            { code },
            { headers: { cookie: pendingCookieOf(asked)! } },
          );
          expect(done.status, done.text).toBe(200);
        }
      } finally {
        await second.done();
      }

      // A key file that holds no key stops the start, naming the file; nothing is generated over it.
      writeFileSync(file, 'not a key\n');
      let error: unknown;
      await createServer(settings({ DATA_DIR: dir, SECRET_KEY: '' })).catch((e: unknown) => (error = e));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `${file} holds no valid SECRET_KEY: restore it from a backup, or set SECRET_KEY`,
      );
      expect(readFileSync(file, 'utf8')).toBe('not a key\n');
      // And the start let go of the data directory.
      const again = await openDatabase({ dataDir: dir, lockWaitMs: 0 });
      await again.close();
    },
  );

  it('a configured SECRET_KEY is used as given: no key file is written', async () => {
    const dir = await seededDataDir();
    const { done } = await serve({ DATA_DIR: dir });
    await done();
    expect(() => statSync(join(dir, SECRET_KEY_FILE))).toThrow(/ENOENT/);
  });

  it('a bad SECRET_KEY stops the process at start-up, naming the variable and never showing the value', async () => {
    const bad = '5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee000'; // 63 digits
    const started = await spawnGateway({ DATA_DIR: dataDir(), SECRET_KEY: bad }).catch((e: unknown) => e);
    expect(started).toBeInstanceOf(Error);
    const text = (started as Error).message;
    expect(text).toContain('gateway exited (1) before listening');
    expect(text).toContain('SECRET_KEY=(secret, 63 characters, not shown): must be 64 hex digits');
    expect(text).not.toContain(bad);
    expect(text).not.toContain(bad.slice(0, 16));
  });

  if (process.env.TEST_DATABASE_URL) {
    it('with DATABASE_URL, none set stops the start naming SECRET_KEY (every instance must share it)', async () => {
      const db = await createTestDatabase('postgres');
      try {
        let error: unknown;
        await createServer(settings({ DATABASE_URL: db.url!, SECRET_KEY: '' })).catch((e: unknown) => (error = e));
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toContain(
          'SECRET_KEY=unset: required with DATABASE_URL (every instance must share it)',
        );
        // The real process says so and exits 1.
        const started = await spawnGateway({ DATABASE_URL: db.url!, SECRET_KEY: '' }).catch((e: unknown) => e);
        expect((started as Error).message).toContain('gateway exited (1) before listening');
        expect((started as Error).message).toContain('SECRET_KEY=unset: required with DATABASE_URL');
      } finally {
        await db.close();
      }
    });
  }
});

// PASSWORD_PEPPER at start-up: like SECRET_KEY, generated into DATA_DIR for the embedded database
// and required with DATABASE_URL; hashes from before pepper ids (the public default) keep working.
describe('PASSWORD_PEPPER at start-up', () => {
  const { dataDir, seededDataDir } = tempDataDirs('accounts-pepper-');
  const logged = () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    return { lines, stream };
  };

  it(
    'with the embedded database and none set, generates one (owner-only) and hashes under its id; a hash made with the public default of earlier versions signs in and is re-hashed',
    { timeout: 240_000 },
    async () => {
      const dir = await seededDataDir();
      const file = join(dir, PEPPER_FILE);
      const email = uniqueEmail('pepper');
      const log = logged();
      const server = await createServer(settings({ DATA_DIR: dir, PASSWORD_PEPPER: '', LOG_LEVEL: 'info' }), {
        logStream: log.stream,
      });
      const client = httpClient(Number(new URL(await server.start()).port), { formHeaders: SEED_HEADERS });
      try {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const pepper = readFileSync(file, 'utf8').trim();
        expect(pepper).toMatch(/^[0-9a-f]{64}$/);
        expect(log.lines.some((l) => l.includes(file) && l.includes('back this file up'))).toBe(true);
        expect(log.lines.join('')).not.toContain(pepper);
        expect((await client.form('/users/register', registration(email))).status).toBe(201);
      } finally {
        await client.close();
        await server.stop();
      }
      const pepper = readFileSync(file, 'utf8').trim();
      // An account whose hash predates pepper ids, made with the public default (an installation that never set one).
      const old = await createHasher({ cost: 4, pepper: PUBLIC_DEFAULT_PEPPER, workers: 1 });
      const legacy = (await old.hash(STRONG)).replace(/^bcrypt-hmac-sha384:[0-9a-f]{8}/, 'bcrypt-hmac-sha384');
      await old.close();
      const database = await openDatabase({ dataDir: dir, lockWaitMs: 0 });
      try {
        const [row] = await database.db
          .select()
          .from(users)
          .where(sql`${users.email} = ${email}`);
        expect(row!.passwordHash).toMatch(new RegExp(`^bcrypt-hmac-sha384:${pepperId(pepper)}\\$`));
        await database.db
          .update(users)
          .set({ passwordHash: legacy })
          .where(sql`${users.email} = ${email}`);
      } finally {
        await database.close();
      }

      const again = logged();
      const second = await createServer(settings({ DATA_DIR: dir, PASSWORD_PEPPER: '', LOG_LEVEL: 'info' }), {
        logStream: again.stream,
      });
      const client2 = httpClient(Number(new URL(await second.start()).port), { formHeaders: SEED_HEADERS });
      try {
        expect(readFileSync(file, 'utf8').trim()).toBe(pepper);
        // The server says what is left from before pepper ids, and what to do.
        expect(
          again.lines.some((l) => l.includes('password hashes from before pepper ids') && l.includes('"hashes":1')),
        ).toBe(true);
        expect((await client2.form('/users/login', { email, password: STRONG })).status).toBe(200);
      } finally {
        await client2.close();
        await second.stop();
      }
      const reopened = await openDatabase({ dataDir: dir, lockWaitMs: 0 });
      try {
        const [row] = await reopened.db
          .select()
          .from(users)
          .where(sql`${users.email} = ${email}`);
        expect(row!.passwordHash).toMatch(new RegExp(`^bcrypt-hmac-sha384:${pepperId(pepper)}\\$`));
      } finally {
        await reopened.close();
      }
    },
  );

  it('NODE_ENV=production without SMTP_URL stops the process at start-up, naming SMTP_URL', async () => {
    const started = await spawnGateway({ DATA_DIR: dataDir(), NODE_ENV: 'production' }).catch((e: unknown) => e);
    expect(started).toBeInstanceOf(Error);
    expect((started as Error).message).toContain('gateway exited (1) before listening');
    expect((started as Error).message).toContain('SMTP_URL=unset: required with NODE_ENV=production');
  });

  it('a pepper shorter than 32 bytes stops the process at start-up, naming the variable and never showing it', async () => {
    const started = await spawnGateway({ DATA_DIR: dataDir(), PASSWORD_PEPPER: 'only-sixteen-chr' }).catch(
      (e: unknown) => e,
    );
    expect((started as Error).message).toContain('gateway exited (1) before listening');
    expect((started as Error).message).toContain(
      'PASSWORD_PEPPER=(secret, 16 characters, not shown): must be at least 32 bytes',
    );
    expect((started as Error).message).not.toContain('only-sixteen-chr');
  });

  if (process.env.TEST_DATABASE_URL) {
    it('with DATABASE_URL, none set stops the start naming PASSWORD_PEPPER (every instance must share it)', async () => {
      const db = await createTestDatabase('postgres');
      try {
        let error: unknown;
        await createServer(settings({ DATABASE_URL: db.url!, PASSWORD_PEPPER: '' })).catch((e: unknown) => (error = e));
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toContain(
          'PASSWORD_PEPPER=unset: required with DATABASE_URL (every instance must share it)',
        );
        const started = await spawnGateway({ DATABASE_URL: db.url!, PASSWORD_PEPPER: '' }).catch((e: unknown) => e);
        expect((started as Error).message).toContain('gateway exited (1) before listening');
        expect((started as Error).message).toContain('PASSWORD_PEPPER=unset: required with DATABASE_URL');
      } finally {
        await db.close();
      }
    });
  }
});
