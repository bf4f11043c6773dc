import { performance } from 'node:perf_hooks';
import { testDrivers } from '@accounts/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, startGateway, uniqueEmail, type Gateway } from '../support/gateway.js';

// A sign-in must not tell whether an email has an account: an unknown email and a known one
// with a wrong password get the same status and body, in the same time. A realistic bcrypt
// cost makes hashing dominate, as in production; the account lock is raised out of the way.
const TRIES = 50;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

describe.each(testDrivers())('sign-in enumeration on %s', (driver) => {
  let gw: Gateway;
  let known: string;
  beforeAll(async () => {
    gw = await startGateway(driver, { BCRYPT_COST: '10', ACCOUNT_MAX_FAILURES: '1000' });
    known = uniqueEmail('known');
    expect((await gw.form('/users/register', registration(known))).status).toBe(201);
  });
  afterAll(() => gw?.close());

  const attempt = async (email: string) => {
    const t0 = performance.now();
    const res = await gw.form('/users/login', { email, password: 'a wrong password, long enough' });
    return { ms: performance.now() - t0, res };
  };

  it(`answers alike, within 10% in median time over ${TRIES} tries each`, { timeout: 120_000 }, async () => {
    await attempt(known); // warm both paths before measuring
    await attempt(uniqueEmail('warm'));
    const times = { known: [] as number[], unknown: [] as number[] };
    const bodies = new Set<string>();
    const shapes = new Set<string>();
    // Interleaved, so drift in machine load affects both sides alike.
    for (let i = 0; i < TRIES; i++) {
      for (const [side, email] of [['known', known], ['unknown', uniqueEmail('nobody')]] as const) {
        const { ms, res } = await attempt(email);
        times[side].push(ms);
        bodies.add(res.text);
        shapes.add(JSON.stringify([res.status, res.headers['content-type'], res.headers['content-length'], res.headers['set-cookie'] ?? null]));
      }
    }
    expect(bodies.size).toBe(1);
    expect(shapes.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toMatchObject({ status: 422, errors: [{ field: 'password', code: 'credentials_invalid' }] });
    const [k, u] = [median(times.known), median(times.unknown)];
    console.info(`sign-in median on ${driver}: known email ${k.toFixed(1)} ms, unknown email ${u.toFixed(1)} ms`);
    expect(Math.abs(k - u) / Math.max(k, u), `median known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`).toBeLessThan(0.1);
  });
});
