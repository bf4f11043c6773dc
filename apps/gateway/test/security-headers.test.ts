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
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
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
