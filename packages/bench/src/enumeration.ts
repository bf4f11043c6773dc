// Whether an answer's time tells an email with an account from one without. The tests assert that
// the answers are identical (status, headers, body); their times are measured here, with enough
// samples: requests one at a time, known and unknown alternating, so both see the same machine.
import { spread, type Spread } from './report.js';
import { gateway, uniqueEmail, type Account, type Req } from './traffic.js';

export interface EnumerationTiming {
  /** The route and what the known email is sent with. */
  name: string;
  samples: number;
  knownMs: Spread;
  unknownMs: Spread;
  /** Median of the known email's times ÷ median of the unknown's. */
  ratio: number;
  /** Every status seen, per kind: the same single status for both is the point. */
  statuses: { known: Record<string, number>; unknown: Record<string, number> };
}

const WRONG_PASSWORD = 'not the password of anyone here';

const PROBES = [
  {
    name: 'POST /users/login, wrong password',
    request: (email: string) => gateway.signIn({ email, password: WRONG_PASSWORD }),
  },
  { name: 'POST /users/forgot_password', request: (email: string) => gateway.forgotPassword(email) },
];

async function timed(baseUrl: string, req: Req) {
  const t0 = performance.now();
  const res = await fetch(baseUrl + req.path, {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: req.body as string,
  });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}

export async function measureEnumeration(
  baseUrl: string,
  known: Account,
  samples: number,
): Promise<EnumerationTiming[]> {
  const results: EnumerationTiming[] = [];
  for (const probe of PROBES) {
    const times = { known: [] as number[], unknown: [] as number[] };
    const statuses = { known: {} as Record<string, number>, unknown: {} as Record<string, number> };
    for (let i = 0; i < samples; i++) {
      // Which goes first alternates too, so neither always follows the other.
      const order = i % 2 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const);
      for (const kind of order) {
        const { ms, status } = await timed(baseUrl, probe.request(kind === 'known' ? known.email : uniqueEmail()));
        times[kind].push(ms);
        statuses[kind][status] = (statuses[kind][status] ?? 0) + 1;
      }
    }
    const knownMs = spread(times.known);
    const unknownMs = spread(times.unknown);
    results.push({ name: probe.name, samples, knownMs, unknownMs, ratio: knownMs.median / unknownMs.median, statuses });
  }
  return results;
}
