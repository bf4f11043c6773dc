import { randomBytes } from 'node:crypto';
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

type Req = Pick<autocannon.Request, 'method' | 'path' | 'headers' | 'body'>;

const runTag = randomBytes(3).toString('hex');
let serial = 0;
/** Unique across the run (and across runs against a kept database). */
export const uniqueEmail = () => `u${++serial}.${runTag}@load.test`;

const otherPassword = (current: string) => (current === PASSWORDS[0] ? PASSWORDS[1] : PASSWORDS[0]);

/**
 * The gateway's form API; `X-Session-Delivery: token` puts the session token in the body.
 * Headers are a new object each time: autocannon writes Content-Length into the one it gets.
 */
const formHeaders = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/x-www-form-urlencoded', ...extra });
const TOKEN_IN_BODY = { 'x-session-delivery': 'token' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const gateway = {
  register(email = uniqueEmail(), withToken = false): Req {
    const p = PASSWORDS[0];
    const headers = formHeaders(withToken ? TOKEN_IN_BODY : {});
    return { method: 'POST', path: '/users/register', headers, body: form({ name: NAME, email, password: p, password2: p }) };
  },
  signIn(a: Account): Req {
    return { method: 'POST', path: '/users/login', headers: formHeaders(), body: form({ email: a.email, password: a.password }) };
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

/** better-auth's JSON sign-up, the peer's registration. */
export const betterAuth = {
  register(): Req {
    return {
      method: 'POST',
      path: '/api/auth/sign-up/email',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: NAME, email: uniqueEmail(), password: PASSWORDS[0] }),
    };
  },
};

/** Registers `count` accounts before a scenario (not measured), keeping their session tokens. */
export async function createAccounts(baseUrl: string, count: number, concurrency: number): Promise<Account[]> {
  const accounts: Account[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const email = uniqueEmail();
      const req = gateway.register(email, true);
      const res = await fetch(baseUrl + req.path, { method: 'POST', headers: req.headers as Record<string, string>, body: req.body as string });
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
  builders?: { register(): Req };
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
