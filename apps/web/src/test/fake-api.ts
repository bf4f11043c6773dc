import type { ProcedurePath } from '@accounts/api';
import type { AccountSecurity, SignedInUser, TwoStepStatus } from '../session';
import type { Problem, RouterOutputs } from '../trpc';

// A stand-in for the gateway's /trpc endpoint, speaking tRPC's non-batched HTTP format,
// so the real client, hooks and error handling run unchanged in component tests. Its answers
// are typed with the router's outputs: a fixture that drifts from them does not compile.

type OutputOf<P extends ProcedurePath> = P extends `${infer R extends keyof RouterOutputs}.${infer N extends string}`
  ? RouterOutputs[R][N & keyof RouterOutputs[R]]
  : never;

export type ProblemReply = { problem: Pick<Problem, 'status' | 'code'> & Partial<Problem> };
/** A procedure's answer, or a refusal. */
export type Reply<P extends ProcedurePath> = { data: OutputOf<P> } | ProblemReply;
export type Handler<P extends ProcedurePath> = (input: unknown) => Reply<P> | Promise<Reply<P>>;
export type Handlers = { [P in ProcedurePath]?: Handler<P> };

export const ACME_SETTINGS: RouterOutputs['account']['settings'] = {
  productName: 'Example ID',
  realm: { slug: 'acme', name: 'Acme Inc', isDefault: false, named: true },
  passwordPolicy: { minLength: 15, maxLength: 256 },
};
export const DEFAULT_SETTINGS: RouterOutputs['account']['settings'] = {
  ...ACME_SETTINGS,
  // Unnamed, the default realm goes by the service's name.
  realm: { slug: 'default', name: 'Example ID', isDefault: true, named: false },
};
export const ADA: SignedInUser = {
  id: 'u1',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  realm: 'acme',
  emailVerified: false,
};
export const TWO_STEP_OFF: TwoStepStatus = { enabled: false, methods: [], recoveryCodesLeft: 0 };
export const TWO_STEP_ON: TwoStepStatus = { enabled: true, methods: ['totp', 'recovery_code'], recoveryCodesLeft: 10 };

/** A password set three days ago; no second factor suggested (the hub's tests of the suggestion say so). */
export const THREE_DAYS_AGO = new Date(Date.now() - 3 * 86_400_000).toISOString();
export const SECURITY: AccountSecurity = { passwordChangedAt: THREE_DAYS_AGO, suggestSecondFactor: false };

/** account.me's answer for a signed-in user; two-step sign-in off unless told. */
export const signedInAs = (
  user: SignedInUser = ADA,
  twoStep: TwoStepStatus = TWO_STEP_OFF,
  security: AccountSecurity = SECURITY,
): Reply<'account.me'> => ({
  data: { user, twoStep, security },
});

export const UNAUTHENTICATED: ProblemReply = { problem: { status: 401, code: 'unauthenticated' } };

export function problem(status: number, code: Problem['code'], extra: Partial<Problem> = {}): ProblemReply {
  return { problem: { status, code, ...extra } };
}

export function fakeApi(handlers: Handlers = {}) {
  const calls: { path: string; input: unknown }[] = [];
  const all: Record<string, Handler<ProcedurePath> | undefined> = {
    'account.settings': () => ({ data: ACME_SETTINGS }),
    'account.me': () => UNAUTHENTICATED,
    // The account and password pages show how many passkeys there are.
    'passkeys.list': () => ({ data: { passkeys: [] } }),
    // The sign-in and register pages list the realm's other providers.
    'upstream.providers': () => ({ data: { providers: [] } }),
    // The pages behind mailed links check the link first; a test of a link that no longer works says so.
    'email.checkLink': () => ({ data: { state: 'usable' } }),
    ...handlers,
  };

  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const parsed = new URL(typeof url === 'string' ? url : url instanceof URL ? url.href : url.url, 'http://localhost');
    const path = parsed.pathname.replace(/^\/trpc\//, '');
    const raw = init?.method === 'POST' ? init.body : parsed.searchParams.get('input');
    const input = typeof raw === 'string' && raw ? JSON.parse(raw) : undefined;
    calls.push({ path, input });
    const handler = all[path];
    if (!handler) throw new Error(`fake api: no handler for ${path}`);
    const reply = await handler(input);
    if ('data' in reply) return json(200, { result: { data: reply.data } });
    const full = { type: 'about:blank', title: `server title for ${reply.problem.code}`, ...reply.problem };
    return json(full.status, {
      error: { message: full.title, code: -32000, data: { code: 'X', httpStatus: full.status, problem: full } },
    });
  };

  return {
    fetch,
    calls,
    callsTo: (path: string) => calls.filter((c) => c.path === path),
  };
}

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A promise with its resolve exposed, to hold a request open. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
