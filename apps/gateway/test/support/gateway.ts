import { Writable } from 'node:stream';
import {
  createHasher,
  createRealm,
  createVault,
  openLink,
  parseSecretKey,
  setEventRetention,
  type Hasher,
  type HasherOptions,
} from '@accounts/api';
import type { Driver } from '@accounts/db';
import { createTestDatabase, httpClient, STRONG, uniqueEmail, type Client, type TestDatabase } from '@accounts/testing';
import { loadConfig } from '../../src/config.js';
import { hasherOptionsFrom } from '../../src/config-options.js';
import { createServer, type Server } from '../../src/server.js';

export const SEED_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
  accept: '*/*',
  'accept-language': 'en-US,en;q=0.9',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

export { STRONG, STRONG2, uniqueEmail, type Response } from '@accounts/testing';

/** The SECRET_KEY of test gateways (several instances of one test share it, as a deployment's must). */
export const TEST_SECRET_KEY = '5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee5ec7e7c0ffee0001';

/** The PASSWORD_PEPPER of test gateways. */
export const TEST_PEPPER = 'test-gateway-pepper-0123456789abcdef-0001';

/** A queued mail's payload with its link opened under TEST_SECRET_KEY, as the sender opens it. */
export const openedPayload = (row: { recipient: string; payload: unknown } | undefined) =>
  row && openLink(createVault(parseSecretKey(TEST_SECRET_KEY)!), row.recipient, row.payload);

// One hashing pool per test process and set of options, kept until the process ends: its
// estimating thread loads the password estimator (about 1.5 s of CPU) once, not once per gateway,
// and this package's files share the process (isolate: false in vitest.config.ts).
const hashers = new Map<string, Promise<Hasher>>();
const sharedHasher = (options: HasherOptions) => {
  const key = JSON.stringify(options);
  if (!hashers.has(key)) hashers.set(key, createHasher(options));
  return hashers.get(key)!;
};

/** An in-process gateway; `form` posts with the seed's exact headers. */
export interface Gateway extends Client {
  port: number;
  db: TestDatabase;
  logs: string[];
  app: Server['app'];
  hasher: Hasher;
}

/**
 * A gateway on a real listening socket over a fresh database, with its log captured; or, with
 * `sharing`, a second gateway over another one's database (as gateways of one deployment are).
 */
export async function startGateway(
  driver: Driver,
  env: Record<string, string> = {},
  sharing?: Gateway,
): Promise<Gateway> {
  const db = sharing?.db ?? (await createTestDatabase(driver));
  if (!sharing) await createRealm(db.db, 'acme', 'Acme Inc');
  const config = loadConfig({
    // A port of its own; links in mails keep the default port (3000), whatever this one is.
    HOST: '127.0.0.1',
    PORT: '0',
    PUBLIC_PORT: '3000',
    BCRYPT_COST: '4',
    LOG_LEVEL: 'info',
    HASH_WORKERS: '2',
    SERVE_WEB: 'false',
    RATE_LIMIT_REGISTER: '1000',
    RATE_LIMIT_SIGN_IN: '1000',
    RATE_LIMIT_CHANGE_PASSWORD: '1000',
    RATE_LIMIT_ACCOUNT_WRITES: '1000',
    RATE_LIMIT_LINK_CHECK: '1000',
    SECRET_KEY: TEST_SECRET_KEY,
    PASSWORD_PEPPER: TEST_PEPPER,
    ...env,
  });
  const hasher = await sharedHasher(hasherOptionsFrom(config));
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  // What the server does to the database it opens itself, after migrating it.
  await setEventRetention(db.db, config.EVENT_RETENTION_DAYS);
  // The test's database and hashing pool outlive the server's stop, so a test can look at them after it.
  const server = await createServer(config, { database: db, hasher, logStream });
  const { app } = server;
  await server.start();
  const port = (app.server.address() as { port: number }).port;

  const client = httpClient(port, { formHeaders: SEED_HEADERS });
  return {
    ...client,
    port,
    db,
    logs,
    app,
    hasher,
    close: async () => {
      await client.close();
      // A test may have started the stop itself (app.close()): this waits for it.
      await server.stop();
      // A shared database is closed by the gateway that made it.
      if (!sharing) await db.close();
    },
  };
}

export const registration = (email = uniqueEmail(), password = STRONG, name = 'Test User') => ({
  name,
  email,
  password,
  password2: password,
});
