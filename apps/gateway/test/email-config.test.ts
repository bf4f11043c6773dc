import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { realmOrigin } from '../src/mail/origin.js';

describe('mail settings', () => {
  it('takes smtp:// and smtps:// URLs, and names a bad one without showing its password', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:secret@smtp.example.com:465' }).SMTP_URL).toBe(
      'smtps://user:secret@smtp.example.com:465',
    );
    let message = '';
    try {
      loadConfig({ SMTP_URL: 'http://user:secret@smtp.example.com' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('SMTP_URL');
    expect(message).toContain('must be an smtp:// or smtps:// URL');
    expect(message).not.toContain('secret');
  });

  it('takes PUBLIC_URL as an origin only', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/' }).PUBLIC_URL).toBe('https://example.com');
    expect(() => loadConfig({ PUBLIC_URL: 'https://example.com/accounts' })).toThrow(/PUBLIC_URL.*origin/);
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://example.com' })).toThrow(/PUBLIC_URL/);
  });

  it('builds links on the realm origin from configuration alone: PUBLIC_URL when set, else PUBLIC_SCHEME on ROOT_DOMAIN at PUBLIC_PORT (PORT by default)', () => {
    const behindProxy = loadConfig({
      PUBLIC_URL: 'https://example.com',
      ROOT_DOMAIN: 'example.com',
      PUBLIC_PORT: '8443',
    });
    expect(realmOrigin('default', behindProxy)).toBe('https://example.com');
    expect(realmOrigin('acme', behindProxy)).toBe('https://acme.example.com');
    // The defaults match `npm start`: http on PORT (3000).
    const local = loadConfig({});
    expect(realmOrigin('default', local)).toBe('http://localhost:3000');
    expect(realmOrigin(undefined, local)).toBe('http://localhost:3000');
    expect(realmOrigin('acme', local)).toBe('http://acme.localhost:3000');
    expect(realmOrigin('acme', loadConfig({ PORT: '4101' }))).toBe('http://acme.localhost:4101');
    expect(realmOrigin('acme', loadConfig({ PORT: '4101', PUBLIC_PORT: '8080' }))).toBe('http://acme.localhost:8080');
    // A scheme's own port is left out; PORT=0 (any free port) names none a link could use.
    expect(
      realmOrigin('acme', loadConfig({ ROOT_DOMAIN: 'example.org', PUBLIC_SCHEME: 'https', PUBLIC_PORT: '443' })),
    ).toBe('https://acme.example.org');
    expect(realmOrigin('default', loadConfig({ PORT: '80' }))).toBe('http://localhost');
    expect(realmOrigin('default', loadConfig({ PORT: '0' }))).toBe('http://localhost');
    expect(realmOrigin('default', loadConfig({ PUBLIC_SCHEME: 'https', PUBLIC_PORT: '80' }))).toBe(
      'https://localhost:80',
    );
  });

  it('takes PUBLIC_SCHEME as http or https and PUBLIC_PORT as a port', () => {
    expect(() => loadConfig({ PUBLIC_SCHEME: 'ftp' })).toThrow(/PUBLIC_SCHEME/);
    expect(() => loadConfig({ PUBLIC_SCHEME: 'HTTPS' })).toThrow(/PUBLIC_SCHEME/);
    for (const port of ['0', '65536', 'abc', '80.5'])
      expect(() => loadConfig({ PUBLIC_PORT: port }), port).toThrow(/PUBLIC_PORT/);
  });
});
