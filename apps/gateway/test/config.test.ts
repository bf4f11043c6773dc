import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { realmSlugFromHost } from '../src/realm-host.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, HOST: '127.0.0.1', DATA_DIR: './.data', ROOT_DOMAIN: 'localhost', BCRYPT_COST: 11, PASSWORD_MIN_LENGTH: 15, TRUST_PROXY: false, TRUSTED_ORIGINS: [] });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names every bad variable and what it must be, at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', BCRYPT_COST: '3', PASSWORD_MIN_LENGTH: '6', DATABASE_URL: 'mysql://db', TRUST_PROXY: 'maybe', TRUSTED_ORIGINS: 'not a url', LOG_LEVEL: 'loud', PASSWORD_PEPPER: 'short' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    for (const name of ['PORT', 'BCRYPT_COST', 'PASSWORD_MIN_LENGTH', 'DATABASE_URL', 'TRUST_PROXY', 'TRUSTED_ORIGINS', 'LOG_LEVEL', 'PASSWORD_PEPPER']) {
      expect(text).toContain(`${name}=`);
    }
    expect(text).toContain('postgres://');
    expect(text).toContain('16 characters');
  });

  it('reads proxy trust as a flag, a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(loadConfig({ TRUSTED_ORIGINS: 'https://a.example.com, http://localhost:5173' }).TRUSTED_ORIGINS).toEqual(['https://a.example.com', 'http://localhost:5173']);
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
