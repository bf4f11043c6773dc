import { describe, expect, it } from 'vitest';
import { PUBLIC_DEFAULT_PEPPER } from '@accounts/api';
import { ConfigError, loadConfig } from '../src/config.js';
import { realmSlugFromHost } from '../src/realm-host.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './.data',
      ROOT_DOMAIN: 'localhost',
      BCRYPT_COST: 11,
      PASSWORD_MIN_LENGTH: 15,
      TRUST_PROXY: false,
      TRUSTED_ORIGINS: [],
    });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names every bad variable and what it must be, at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        BCRYPT_COST: '3',
        PASSWORD_MIN_LENGTH: '6',
        DATABASE_URL: 'mysql://db',
        TRUST_PROXY: 'maybe',
        TRUSTED_ORIGINS: 'not a url',
        LOG_LEVEL: 'loud',
        PASSWORD_PEPPER: 'short',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    for (const name of [
      'PORT',
      'BCRYPT_COST',
      'PASSWORD_MIN_LENGTH',
      'DATABASE_URL',
      'TRUST_PROXY',
      'TRUSTED_ORIGINS',
      'LOG_LEVEL',
      'PASSWORD_PEPPER',
    ]) {
      expect(text).toContain(`${name}=`);
    }
    expect(text).toContain('postgres://');
    expect(text).toContain('32 bytes');
  });

  it('names a bad secret but never shows it', () => {
    const pepper = 'short-pepper';
    const dbPassword = 's3cr3t-db-pass';
    const redisPassword = 'r3dis-pass';
    let text = '';
    try {
      loadConfig({
        PASSWORD_PEPPER: pepper,
        DATABASE_URL: `mysql://app:${dbPassword}@db.internal/accounts`,
        REDIS_URL: `http://:${redisPassword}@cache:6379`,
      });
    } catch (e) {
      text = (e as Error).message;
    }
    expect(text).toMatch(/PASSWORD_PEPPER=\(secret, 12 characters, not shown\): must be at least 32 bytes/);
    expect(text).toContain('DATABASE_URL="mysql://app:***@db.internal/accounts"');
    expect(text).toContain('REDIS_URL="http://:***@cache:6379/"');
    for (const secret of [pepper, dbPassword, redisPassword]) expect(text).not.toContain(secret);
  });

  it('hides a URL that cannot be parsed, since its password cannot be located', () => {
    let text = '';
    try {
      loadConfig({ DATABASE_URL: 'app:hunter2-hunter2@db' });
    } catch (e) {
      text = (e as Error).message;
    }
    expect(text).toContain('DATABASE_URL=(not a URL, not shown): must be a postgres:// or postgresql:// URL');
    expect(text).not.toContain('hunter2');
  });

  it('reads proxy trust as false, a hop count or a list of addresses, and refuses true', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY="true": .*proxy hops.*addresses/);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(loadConfig({ TRUSTED_ORIGINS: 'https://a.example.com, http://localhost:5173' }).TRUSTED_ORIGINS).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
  });
});

describe('SECRET_KEY', () => {
  it('takes 64 hex digits or base64 (standard or URL-safe) of at least 32 bytes; unset by default', () => {
    const hex = '0123456789abcdef'.repeat(4);
    expect(loadConfig({ SECRET_KEY: hex }).SECRET_KEY).toEqual(Buffer.from(hex, 'hex'));
    expect(loadConfig({ SECRET_KEY: hex.toUpperCase() }).SECRET_KEY).toEqual(Buffer.from(hex, 'hex'));
    const bytes = Buffer.alloc(32, 0xfe);
    expect(loadConfig({ SECRET_KEY: bytes.toString('base64') }).SECRET_KEY).toEqual(bytes);
    expect(loadConfig({ SECRET_KEY: bytes.toString('base64url') }).SECRET_KEY).toEqual(bytes);
    expect(loadConfig({ SECRET_KEY: Buffer.alloc(48, 7).toString('base64') }).SECRET_KEY).toHaveLength(48);
    expect(loadConfig({}).SECRET_KEY).toBeUndefined();
  });

  it('names a bad one and what it must be, and never shows it', () => {
    for (const bad of [
      '0123456789abcdef'.repeat(4).slice(1), // a digit lost in a copy
      `${'0123456789abcdef'.repeat(4)}0`,
      Buffer.alloc(31, 0xfe).toString('base64'), // too short
      'correct horse battery staple, not a key',
    ]) {
      let error: unknown;
      try {
        loadConfig({ SECRET_KEY: bad });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      const text = (error as Error).message;
      expect(text).toContain(`SECRET_KEY=(secret, ${bad.length} characters, not shown): must be 64 hex digits`);
      expect(text).toContain('node -e "console.log(crypto.randomBytes(32).toString(\'hex\'))"');
      expect(text).not.toContain(bad);
      expect(text).not.toContain(bad.slice(0, 12));
    }
  });
});

describe('PASSWORD_PEPPER and the previous secrets', () => {
  const pepper = 'a-pepper-of-thirty-two-bytes-or-more-0001';
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('is unset by default (generated, or required with DATABASE_URL: server.test.ts), at least 32 bytes, never the public default', () => {
    expect(loadConfig({}).PASSWORD_PEPPER).toBeUndefined();
    expect(loadConfig({ PASSWORD_PEPPER: pepper }).PASSWORD_PEPPER).toBe(pepper);
    expect(refusal({ PASSWORD_PEPPER: 'x'.repeat(31) })).toContain(
      'PASSWORD_PEPPER=(secret, 31 characters, not shown): must be at least 32 bytes',
    );
    const text = refusal({ PASSWORD_PEPPER: PUBLIC_DEFAULT_PEPPER });
    expect(text).toContain(
      'PASSWORD_PEPPER=(secret, 43 characters, not shown): is the public default of earlier versions',
    );
    expect(text).not.toContain(PUBLIC_DEFAULT_PEPPER);
  });

  it('reads comma-separated previous peppers and keys, never showing a bad one', () => {
    const key = '0123456789abcdef'.repeat(4);
    expect(
      loadConfig({ PASSWORD_PEPPER_PREVIOUS: `${pepper}, ${PUBLIC_DEFAULT_PEPPER}` }).PASSWORD_PEPPER_PREVIOUS,
    ).toEqual([pepper, PUBLIC_DEFAULT_PEPPER]);
    expect(loadConfig({ SECRET_KEY_PREVIOUS: `${key},${key.toUpperCase()}` }).SECRET_KEY_PREVIOUS).toHaveLength(2);
    expect(loadConfig({}).SECRET_KEY_PREVIOUS).toEqual([]);
    const text = refusal({ SECRET_KEY_PREVIOUS: `${key},not-a-key-at-all`, PASSWORD_PEPPER_PREVIOUS: 'short-one' });
    expect(text).toContain('SECRET_KEY_PREVIOUS=(secret,');
    expect(text).toContain('PASSWORD_PEPPER_PREVIOUS=(secret,');
    expect(text).not.toContain(key);
    expect(text).not.toContain('short-one');
  });
});

describe('mail in production', () => {
  it('NODE_ENV=production without SMTP_URL stops the start, naming SMTP_URL, unless MAIL_TRANSPORT=log says so on purpose', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /SMTP_URL=unset: required with NODE_ENV=production .*MAIL_TRANSPORT=log/,
    );
    expect(loadConfig({ NODE_ENV: 'production', MAIL_TRANSPORT: 'log' }).MAIL_TRANSPORT).toBe('log');
    expect(loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://mail.internal:587' }).SMTP_URL).toBeDefined();
    expect(loadConfig({ NODE_ENV: 'development' }).SMTP_URL).toBeUndefined();
    expect(() => loadConfig({ MAIL_TRANSPORT: 'smtp' })).toThrow(/SMTP_URL=unset: required with MAIL_TRANSPORT=smtp/);
    expect(() => loadConfig({ MAIL_TRANSPORT: 'pigeon' })).toThrow(/MAIL_TRANSPORT="pigeon"/);
  });
});

describe('realms from the Host', () => {
  it.each([
    ['localhost', 'localhost', 'default'],
    ['acme.localhost', 'localhost', 'acme'],
    ['ACME.localhost.', 'localhost', 'acme'],
    ['127.0.0.1', 'localhost', 'default'],
    ['[::1]', 'localhost', 'default'],
    ['example.com', 'example.com', 'default'],
    ['acme.example.com', 'example.com', 'acme'],
    ['a.b.example.com', 'example.com', null],
    ['example.org', 'example.com', null],
    ['-bad.example.com', 'example.com', null],
    ['evilexample.com', 'example.com', null],
  ])('%s under %s is %s', (host, root, realm) => {
    expect(realmSlugFromHost(host, root)).toBe(realm);
  });
});
