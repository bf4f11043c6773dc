import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { realmOrigin } from '../src/mail/origin.js';

const req = (slug: string, protocol: 'http' | 'https', port: number | null) =>
  ({ realm: { slug }, protocol, port, hostname: 'attacker.example' }) as unknown as FastifyRequest;

describe('mail settings', () => {
  it('takes smtp:// and smtps:// URLs, and names a bad one without showing its password', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:secret@smtp.example.com:465' }).SMTP_URL).toBe('smtps://user:secret@smtp.example.com:465');
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

  it('builds links on the realm origin: PUBLIC_URL when set, else ROOT_DOMAIN with the request scheme and port, never the Host as sent', () => {
    const behindProxy = loadConfig({ PUBLIC_URL: 'https://example.com', ROOT_DOMAIN: 'example.com' });
    expect(realmOrigin(req('default', 'http', 3000), behindProxy)).toBe('https://example.com');
    expect(realmOrigin(req('acme', 'http', 3000), behindProxy)).toBe('https://acme.example.com');
    const local = loadConfig({});
    expect(realmOrigin(req('default', 'http', 3000), local)).toBe('http://localhost:3000');
    expect(realmOrigin(req('acme', 'http', 3000), local)).toBe('http://acme.localhost:3000');
    expect(realmOrigin(req('acme', 'https', 443), loadConfig({ ROOT_DOMAIN: 'example.org' }))).toBe('https://acme.example.org');
    expect(realmOrigin(req('default', 'http', 80), local)).toBe('http://localhost');
  });
});
