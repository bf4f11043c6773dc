import { msToNextStep, parseOtpauth, totpCode, type Client } from '@accounts/testing';
import { expect } from 'vitest';
import { STRONG, type Response } from './gateway.js';

// Two-step sign-in over HTTP, for the tests: an authenticator app that never shows a code for a
// time step it already used (the service accepts each step once, and never an older one), and
// the cookies of the password step.

const PERIOD_MS = 30_000;
const stepAt = (ms: number) => Math.floor(ms / PERIOD_MS);

/**
 * An authenticator app for `secret`, computing codes with the tests' own RFC 6238 code
 * (`@accounts/testing`), not the service's library. `next()` is the code of the earliest time step
 * the service still takes: after the last one used, and within its ±1 step of drift (the first
 * one is a step behind the clock, as a slow phone's). It waits out a time step when the three it
 * takes around now are used up.
 */
export function authenticator(secret: string) {
  let last = -Infinity;
  /** The earliest step after `used` the service takes now. */
  const earliest = (used: number) => {
    const now = stepAt(Date.now());
    // A step behind the clock only while the server, answering a moment later, still takes it.
    return Math.max(used + 1, msToNextStep() > 3000 ? now - 1 : now);
  };
  return {
    secret,
    /** The code of an absolute time step (no bookkeeping): for replaying one. */
    codeOf: (step: number) => totpCode(secret, step * PERIOD_MS),
    /** The code of the earliest step after the last used, and that step. */
    async nextWithStep(): Promise<{ code: string; step: number }> {
      if (last + 1 > stepAt(Date.now()) + 1) {
        // Leave a margin after the step begins, so the server's clock is past it too.
        await new Promise((r) => setTimeout(r, msToNextStep() + 200));
      }
      last = earliest(last);
      return { code: totpCode(secret, last * PERIOD_MS), step: last };
    },
    async next(): Promise<string> {
      return (await this.nextWithStep()).code;
    },
    /**
     * The code next() would give, without using its step up: for a request that must fail for
     * another reason than the code (no pending sign-in), so the code's step stays usable.
     */
    peek: (): string => totpCode(secret, earliest(last) * PERIOD_MS),
    /** A code the app would not show now: six digits of none of the steps around now. */
    wrong(): string {
      const now = stepAt(Date.now());
      const near = new Set([-2, -1, 0, 1, 2].map((d) => totpCode(secret, (now + d) * PERIOD_MS)));
      for (let n = 0; ; n++) {
        const candidate = String((123456 + n * 111_111) % 1_000_000).padStart(6, '0');
        if (!near.has(candidate)) return candidate;
      }
    },
  };
}

export type Authenticator = ReturnType<typeof authenticator>;

/** Every Set-Cookie of an answer. */
export const setCookies = (res: Response) => [res.headers['set-cookie'] ?? []].flat();

/** The Set-Cookie line of the cookie `name`, or undefined. */
export const setCookieNamed = (res: Response, name: string) => setCookies(res).find((c) => c.startsWith(`${name}=`));

/** The `name=value` pair a browser would send back for the cookie `name` this answer set. */
export const cookiePair = (res: Response, name: string) => setCookieNamed(res, name)?.split(';')[0];

/** The pending sign-in cookie (`pending_sign_in`, `__Host-pending_sign_in` over https) as sent back. */
export const pendingCookieOf = (res: Response, https = false) =>
  cookiePair(res, https ? '__Host-pending_sign_in' : 'pending_sign_in');

/** The known-device cookie an answer set, as sent back. */
export const deviceCookieOf = (res: Response) => cookiePair(res, 'known_device');

/**
 * Sets up the authenticator app of a signed-in account (`headers` carry its session) and turns
 * it on with the first code the app shows: its app and its ten recovery codes.
 */
export async function turnOnTwoStep(
  client: Pick<Client, 'form'>,
  headers: Record<string, string>,
  opts: { host?: string; password?: string } = {},
): Promise<{ app: Authenticator; recoveryCodes: string[]; uri: string }> {
  const setup = await client.form('/users/totp/setup', {}, { headers, host: opts.host });
  expect(setup.status, setup.text).toBe(200);
  const { secret } = parseOtpauth(setup.json.uri);
  expect(secret).toBe(setup.json.secret);
  const app = authenticator(secret);
  const on = await client.form(
    '/users/totp/enable',
    { code: await app.next(), current_password: opts.password ?? STRONG },
    { headers, host: opts.host },
  );
  expect(on.status, on.text).toBe(200);
  expect(on.json.recoveryCodes).toHaveLength(10);
  return { app, recoveryCodes: on.json.recoveryCodes, uri: setup.json.uri };
}
