import { Writable } from 'node:stream';
import { createHasher, createRealm } from '@accounts/api';
import type { Driver } from '@accounts/db';
import { createTestDatabase, type TestDatabase } from '@accounts/db/testing';
import { request as undiciRequest } from 'undici';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

export const SEED_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
  accept: '*/*',
  'accept-language': 'en-US,en;q=0.9',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

export const STRONG = 'violet tractor sings at midnight';
export const STRONG2 = 'quiet harbor lanterns drifting east';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** The session cookie this response set, as "name=value". */
  cookie?: string;
}

export interface Gateway {
  port: number;
  db: TestDatabase;
  logs: string[];
  send(method: string, path: string, opts?: { host?: string; headers?: Record<string, string | string[]>; body?: string | Buffer }): Promise<Response>;
  /** POSTs a form body built from fields with the seed's exact headers. */
  form(path: string, fields: Record<string, string> | string, opts?: { host?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** A gateway on a real listening socket over a fresh database, with its log captured. */
export async function startGateway(driver: Driver, env: Record<string, string> = {}): Promise<Gateway> {
  const db = await createTestDatabase(driver);
  await createRealm(db.db, 'acme', 'Acme Inc');
  const config = loadConfig({
    BCRYPT_COST: '4',
    LOG_LEVEL: 'info',
    HASH_WORKERS: '2',
    SERVE_WEB: 'false',
    RATE_LIMIT_REGISTER: '1000',
    RATE_LIMIT_SIGN_IN: '1000',
    RATE_LIMIT_CHANGE_PASSWORD: '1000',
    ...env,
  });
  const hasher = await createHasher({ cost: config.BCRYPT_COST, pepper: config.PASSWORD_PEPPER, workers: config.HASH_WORKERS, queueMax: config.HASH_QUEUE_MAX });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await buildApp({ config, database: db, hasher, logStream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;

  const send: Gateway['send'] = async (method, path, opts = {}) => {
    const res = await undiciRequest(`http://127.0.0.1:${port}${path}`, {
      method: method as 'GET',
      headers: { host: `${opts.host ?? 'localhost'}:${port}`, ...opts.headers },
      body: opts.body,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {}
    const setCookie = [res.headers['set-cookie'] ?? []].flat();
    const cookie = setCookie.map((c) => c.split(';')[0]!).find((c) => /^(__Host-)?session=./.test(c));
    return { status: res.statusCode, headers: res.headers, text, json, cookie };
  };
  return {
    port,
    db,
    logs,
    send,
    form: (path, fields, opts = {}) =>
      send('POST', path, {
        host: opts.host,
        headers: { ...SEED_HEADERS, ...opts.headers },
        body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
      }),
    close: async () => {
      await app.close();
      await hasher.close();
      await db.close();
    },
  };
}

let n = 0;
export const uniqueEmail = (tag = 'u') => `${tag}.${process.pid}.${Date.now()}.${n++}@example.com`;

export const registration = (email = uniqueEmail(), password = STRONG, name = 'Test User') => ({ name, email, password, password2: password });
