import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type autocannon from 'autocannon';

/** What one request asks of the server, and the bcrypt operations a success costs. */
export type Kind = 'register' | 'signIn' | 'changePassword';
export const HASHES_PER_REQUEST: Record<Kind, number> = { register: 1, signIn: 1, changePassword: 2 };

// Accepted by the password policy: long, not common, and sharing no word with the names and emails below.
const PASSWORDS = ['violet tractor sings at midnight', 'quiet harbor lanterns drifting east'] as const;
const NAME = 'Load Tester';

/** An account made before a scenario; change-password keeps its password and token current. */
export interface Account {
  email: string;
  password: string;
  token: string;
}

export type Req = Pick<autocannon.Request, 'method' | 'path' | 'headers' | 'body'>;

const runTag = randomBytes(3).toString('hex');
let serial = 0;
/** Unique across the run (and across runs against a kept database). */
export const uniqueEmail = () => `u${++serial}.${runTag}@load.test`;

const otherPassword = (current: string) => (current === PASSWORDS[0] ? PASSWORDS[1] : PASSWORDS[0]);

/**
 * The gateway's form API; `X-Session-Delivery: token` puts the session token in the body.
 * Headers are a new object each time: autocannon writes Content-Length into the one it gets.
 */
const formHeaders = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/x-www-form-urlencoded',
  ...extra,
});
const TOKEN_IN_BODY = { 'x-session-delivery': 'token' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const gateway = {
  register(email = uniqueEmail(), withToken = false): Req {
    const p = PASSWORDS[0];
    const headers = formHeaders(withToken ? TOKEN_IN_BODY : {});
    return {
      method: 'POST',
      path: '/users/register',
      headers,
      body: form({ name: NAME, email, password: p, password2: p }),
    };
  },
  signIn(a: Pick<Account, 'email' | 'password'>): Req {
    return {
      method: 'POST',
      path: '/users/login',
      headers: formHeaders(),
      body: form({ email: a.email, password: a.password }),
    };
  },
  forgotPassword(email: string): Req {
    return { method: 'POST', path: '/users/forgot_password', headers: formHeaders(), body: form({ email }) };
  },
  changePassword(a: Account): Req {
    const next = otherPassword(a.password);
    return {
      method: 'POST',
      path: '/users/change_password',
      headers: formHeaders({ ...TOKEN_IN_BODY, authorization: `Bearer ${a.token}` }),
      body: form({ current_password: a.password, new_password: next, confirm_password: next }),
    };
  },
};

/**
 * better-auth's JSON sign-up, the peer's registration. It refuses a POST without an Origin as a
 * possible cross-site request, so each carries its own, as a browser's would.
 */
export const betterAuth = (baseUrl: string) => ({
  register(email = uniqueEmail()): Req {
    return {
      method: 'POST',
      path: '/api/auth/sign-up/email',
      headers: { 'content-type': 'application/json', origin: baseUrl },
      body: JSON.stringify({ name: NAME, email, password: PASSWORDS[0] }),
    };
  },
});

/** How a session check presents its session: the gateway's bearer token or cookie, or better-auth's cookie. */
export type SessionStyle = 'bearer' | 'cookie' | 'better-auth';

/** The cheapest authenticated request: who is signed in? */
export function sessionCheck(style: SessionStyle, credential: string): Req {
  if (style === 'better-auth') return { method: 'GET', path: '/api/auth/get-session', headers: { cookie: credential } };
  const headers = style === 'bearer' ? { authorization: `Bearer ${credential}` } : { cookie: `session=${credential}` };
  return { method: 'GET', path: '/users/me', headers };
}

/** Session checks going round the given credentials, one per request. */
export function sessionChecks(style: SessionStyle, credentials: string[]): autocannon.Request[] {
  let turn = 0;
  return [{ setupRequest: (req) => ({ ...req, ...sessionCheck(style, credentials[turn++ % credentials.length]!) }) }];
}

/** Signs up `count` better-auth users before a scenario, keeping their session cookies. */
export async function createPeerSessions(baseUrl: string, count: number, concurrency: number): Promise<string[]> {
  const cookies: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const req = betterAuth(baseUrl).register();
      const res = await fetch(baseUrl + req.path, {
        method: 'POST',
        headers: req.headers as Record<string, string>,
        body: req.body as string,
      });
      if (!res.ok) throw new Error(`better-auth sign-up answered ${res.status}`);
      const cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .find((c) => c.startsWith('better-auth.session_token='));
      if (!cookie) throw new Error('better-auth sign-up set no session cookie');
      cookies.push(cookie);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  // An unknown session answers 200 with a null body: check that these are known.
  const check = sessionCheck('better-auth', cookies[0]!);
  const res = await fetch(baseUrl + check.path, { headers: check.headers as Record<string, string> });
  if (!res.ok || (await res.json()) === null) throw new Error('better-auth did not recognise its own session cookie');
  return cookies;
}

/** Registers `count` accounts before a scenario (not measured), keeping their session tokens. */
export async function createAccounts(baseUrl: string, count: number, concurrency: number): Promise<Account[]> {
  const accounts: Account[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const email = uniqueEmail();
      const req = gateway.register(email, true);
      let res = await fetch(baseUrl + req.path, {
        method: 'POST',
        headers: req.headers as Record<string, string>,
        body: req.body as string,
      });
      // A hashing queue still draining after an overload answers 503 with Retry-After: wait and retry.
      for (let tries = 0; res.status === 503 && tries < 60; tries++) {
        await res.body?.cancel();
        await sleep(1000 * Math.min(5, Number(res.headers.get('retry-after')) || 1));
        res = await fetch(baseUrl + req.path, {
          method: 'POST',
          headers: req.headers as Record<string, string>,
          body: req.body as string,
        });
      }
      if (res.status !== 201) throw new Error(`creating an account answered ${res.status}`);
      const body = (await res.json()) as { session: { token: string } };
      accounts.push({ email, password: PASSWORDS[0], token: body.session.token });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return accounts;
}

/** Counted as the load runs: requests sent, and 2xx answers per kind (for bcrypt throughput). */
export interface Counts {
  sent: number;
  ok: Record<Kind, number>;
}

interface Slot {
  kind: Kind;
  account?: Account;
}

/**
 * One autocannon request that turns into the next kind of a weighted cycle on every send.
 * Sign-ins go round the sign-in accounts; a change of password borrows an idle account
 * (its password and token change with each success) and falls back to a sign-in when
 * none is idle. An account whose change failed is not used again: its state is unknown.
 */
export function mixedRequests(opts: {
  weights: Partial<Record<Kind, number>>;
  signIn?: Account[];
  changePassword?: Account[];
  builders?: { register: () => Req };
}): { requests: autocannon.Request[]; counts: Counts } {
  const cycle = (Object.entries(opts.weights) as [Kind, number][]).flatMap(([kind, n]) => Array<Kind>(n).fill(kind));
  const signIns = opts.signIn ?? [];
  const idle = [...(opts.changePassword ?? [])];
  const register = opts.builders?.register ?? (() => gateway.register());
  const counts: Counts = { sent: 0, ok: { register: 0, signIn: 0, changePassword: 0 } };
  let signInTurn = 0;

  const build = (slot: Slot): Req => {
    if (slot.kind === 'changePassword') {
      slot.account = idle.pop();
      if (slot.account) return gateway.changePassword(slot.account);
      slot.kind = 'signIn';
    }
    if (slot.kind === 'signIn' && signIns.length) return gateway.signIn(signIns[signInTurn++ % signIns.length]!);
    slot.kind = 'register';
    return register();
  };

  const requests: autocannon.Request[] = [
    {
      // autocannon calls this for each request it sends (autocannon's own count is off under a rate).
      setupRequest(req, context) {
        const slot = context as Slot;
        slot.kind = cycle[counts.sent++ % cycle.length]!;
        return { ...req, ...build(slot) };
      },
      onResponse(status, body, context) {
        const { kind, account } = context as Slot;
        if (status >= 200 && status < 300) counts.ok[kind]++;
        if (kind !== 'changePassword' || !account || status !== 200) return;
        account.password = otherPassword(account.password);
        account.token = (JSON.parse(body) as { session: { token: string } }).session.token;
        idle.push(account);
      },
    },
  ];
  return { requests, counts };
}
