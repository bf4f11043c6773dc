import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, type Gateway } from './support/gateway.js';

// The headers are set once per request from options compiled at start-up; every kind of answer carries them.
describe('security headers', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite');
  });
  afterAll(() => gw.close());

  const expectHeaders = (headers: Record<string, unknown>) => {
    expect(headers['content-security-policy']).toContain("default-src 'self'");
    expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toContain("base-uri 'none'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(headers['strict-transport-security']).toBeUndefined();
  };

  it('are on a signed-in answer, a refusal, and an unknown host alike', async () => {
    const made = await gw.form('/users/register', registration(), { headers: { 'x-session-delivery': 'token' } });
    expect(made.status).toBe(201);
    const me = await gw.send('GET', '/users/me', { headers: { authorization: `Bearer ${made.json.session.token}` } });
    expect(me.status).toBe(200);
    expectHeaders(me.headers);
    const anonymous = await gw.send('GET', '/users/me');
    expect(anonymous.status).toBe(401);
    expectHeaders(anonymous.headers);
    const nowhere = await gw.send('GET', '/users/me', { host: 'elsewhere.example' });
    expect(nowhere.status).toBe(404);
    expectHeaders(nowhere.headers);
  });
});

// Behind a TLS proxy the request may look like plain http: an https PUBLIC_URL (or COOKIE_SECURE)
// makes cookies Secure with __Host- names and sends HSTS whatever it looks like.
describe('cookies and HSTS when the service is configured as https', () => {
  const cookieNames = (setCookie: unknown) =>
    ([] as string[]).concat((setCookie as string[] | string | undefined) ?? []).map((c) => c.split('=')[0]);

  it.each([
    ['PUBLIC_URL', { PUBLIC_URL: 'https://localhost' }],
    ['COOKIE_SECURE', { COOKIE_SECURE: 'true' }],
  ])('with %s, a plain-http request still gets Secure __Host- cookies and HSTS; no warning', async (_name, env) => {
    const gw = await startGateway('pglite', { ...env, TRUST_PROXY: '1' });
    try {
      const made = await gw.form('/users/register', registration(), { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(made.status).toBe(201);
      const setCookie = ([] as string[]).concat(made.headers['set-cookie'] ?? []);
      expect(cookieNames(setCookie)).toEqual(expect.arrayContaining(['__Host-session', '__Host-known_device']));
      for (const c of setCookie) expect(c).toMatch(/; Secure/);
      expect(made.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      // The cookie it set is the one it reads back.
      const sessionCookie = setCookie.find((c) => c.startsWith('__Host-session='))!.split(';')[0]!;
      expect((await gw.send('GET', '/users/me', { headers: { cookie: sessionCookie } })).status).toBe(200);
      expect(gw.logs.some((l) => l.includes('plain http from another machine'))).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it('without it, warns once when plain http arrives from another machine (not per request); loopback alone says nothing', async () => {
    const gw = await startGateway('pglite', { TRUST_PROXY: '1' });
    try {
      await gw.send('GET', '/users/me');
      expect(gw.logs.some((l) => l.includes('plain http from another machine'))).toBe(false);
      for (let i = 0; i < 3; i++) await gw.send('GET', '/users/me', { headers: { 'x-forwarded-for': '203.0.113.8' } });
      const warnings = gw.logs.filter((l) => l.includes('plain http from another machine'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('COOKIE_SECURE');
      const plain = await gw.form('/users/register', registration(), { headers: { 'x-forwarded-for': '203.0.113.8' } });
      expect(cookieNames(plain.headers['set-cookie'])).toContain('session');
      expect(plain.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await gw.close();
    }
  });
});
