import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTempDatabase, freePort, httpClient, type Client } from '@accounts/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, STRONG, STRONG2, uniqueEmail } from './support/gateway.js';
import { haproxyAvailable, startHaproxy, type Balancer } from './support/haproxy.js';
import { scrape, total } from './support/metrics.js';
import { spawnGateway, type GatewayProcess } from './support/process.js';

// Three gateways (the build an operator runs) behind HAProxy started from deploy/haproxy.cfg, on
// a fresh PostgreSQL database and Redis, under a steady load of registrations and session checks
// through the balancer: a rolling restart fails no request; a gateway killed outright fails only
// the requests it had in flight, loses no acknowledged registration, and the cluster is whole
// again once it is back; a password change on one gateway ends the other sessions on all three.

const haproxy = haproxyAvailable();
const database = Boolean(process.env.TEST_DATABASE_URL);
const BUILT = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (!haproxy)
  console.warn(
    '\n*** cluster test LEFT OUT: `haproxy` is not installed (apt-get install haproxy; .ci/run installs it) ***\n',
  );
if (!database) console.warn('\n*** cluster test LEFT OUT: TEST_DATABASE_URL is not set ***\n');

/** Load workers: requests in flight through the balancer at any moment. */
const WORKERS = 4;
/** A bound on the whole run's requests, whatever the machine's speed. */
const MAX_REQUESTS = 20_000;

interface Outcome {
  kind: 'register' | 'me';
  status: number;
  error?: string;
  started: number;
  ended: number;
  email?: string;
}

/** The steady mixed load: one registration for every three session checks, until stopped. */
function startLoad(client: Client, sessions: string[]) {
  const outcomes: Outcome[] = [];
  let running = true;
  const worker = async (w: number) => {
    for (let i = 0; running && outcomes.length < MAX_REQUESTS; i++) {
      const started = performance.now();
      if (i % 4 === 0) {
        const email = uniqueEmail(`load${w}`);
        const res = await client.form('/users/register', registration(email));
        if (res.status === 201 && res.cookie) sessions.push(res.cookie);
        outcomes.push({
          kind: 'register',
          status: res.status,
          error: res.error,
          started,
          ended: performance.now(),
          email,
        });
      } else {
        const cookie = sessions[(w + i) % sessions.length]!;
        const res = await client.send('GET', '/users/me', { headers: { cookie } });
        outcomes.push({ kind: 'me', status: res.status, error: res.error, started, ended: performance.now() });
      }
    }
  };
  const done = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return {
    outcomes,
    /** Outcomes from index `from` on that are not what a healthy cluster answers. */
    failures: (from = 0) => outcomes.slice(from).filter((o) => o.status !== (o.kind === 'register' ? 201 : 200)),
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Polls `check` until it holds (no fixed sleeps: the machine may be busy); `state` explains a timeout. */
async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000, state = () => '') {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${state()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!haproxy || !database)('three gateways behind HAProxy (deploy/haproxy.cfg)', () => {
  let temp: Awaited<ReturnType<typeof createTempDatabase>>;
  let sql: postgres.Sql;
  let env: Record<string, string>;
  const ports: number[] = [];
  const metricsPorts: number[] = [];
  const gateways: GatewayProcess[] = [];
  let balancer: Balancer;
  let client: Client;

  const start = async (i: number) => {
    gateways[i] = await spawnGateway({ ...env, PORT: String(ports[i]), METRICS_PORT: String(metricsPorts[i]) }, 90_000);
  };
  const metricsOf = (i: number) => scrape(`http://127.0.0.1:${metricsPorts[i]}/metrics`);
  /**
   * Session checks gateway `i` has made since it started (from memory or the database): proof the
   * balancer sends it traffic. (The parser flattens histograms that have labels, so counters are read.)
   */
  const served = async (i: number) => {
    const families = await metricsOf(i).catch(() => []);
    return (
      total(families, 'accounts_session_cache_hits_total') + total(families, 'accounts_session_cache_misses_total')
    );
  };

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build the gateway first (npm test does)`);
    temp = await createTempDatabase();
    sql = postgres(temp.url, { max: 2, onnotice: () => {} });
    env = {
      DATABASE_URL: temp.url,
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
      // HAProxy is the one hop in front (option forwardfor).
      TRUST_PROXY: '1',
      HASH_WORKERS: '1',
      MAIL_POLL_MS: '500',
    };
    for (let i = 0; i < 3; i++) {
      ports.push(await freePort());
      metricsPorts.push(await freePort());
    }
    // One at a time: they share the migrations (an advisory lock), and the machine is small.
    for (let i = 0; i < 3; i++) await start(i);
    balancer = await startHaproxy(
      await freePort(),
      ports.map((p) => `127.0.0.1:${p}`),
    );
    client = httpClient(balancer.port);
  }, 300_000);

  afterAll(async () => {
    await client?.close();
    await balancer?.stop();
    await Promise.all(gateways.map((g) => g?.stop()));
    await sql?.end();
    await temp?.drop();
  }, 120_000);

  it(
    'holds through a rolling restart and a SIGKILL; a password change ends sessions on every gateway; /metrics moved',
    { timeout: 600_000 },
    async () => {
      // Some sessions to check, made through the balancer.
      const sessions: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await client.form('/users/register', registration());
        expect(res.status).toBe(201);
        sessions.push(res.cookie!);
      }
      const load = startLoad(client, sessions);
      let rolling = 0;
      let killFailures: Outcome[] = [];
      const answered = () =>
        JSON.stringify(
          load.outcomes.reduce<Record<string, number>>((n, o) => {
            const key = `${o.kind} ${o.status}${o.error ? ` ${o.error}` : ''}`;
            return { ...n, [key]: (n[key] ?? 0) + 1 };
          }, {}),
        );
      try {
        await until(
          'every gateway to serve traffic',
          async () => (await Promise.all([0, 1, 2].map(served))).every((n) => n > 0),
          60_000,
          answered,
        );

        // Rolling restart: each gateway stopped (SIGTERM), started again, and back in the
        // balancer's rotation before the next one goes.
        const rollingFrom = load.outcomes.length;
        for (let i = 0; i < 3; i++) {
          const how = await gateways[i]!.stop(30_000);
          expect(how).toEqual({ code: 0, signal: null });
          await start(i);
          await until(`gateway ${i + 1} back in rotation`, async () => (await served(i)) > 0);
        }
        rolling = load.outcomes.length - rollingFrom;
        expect(rolling).toBeGreaterThan(0);
        expect(load.failures(rollingFrom)).toEqual([]);

        // SIGKILL: only requests in flight at that moment may fail.
        const killFrom = load.outcomes.length;
        await until('some load before the kill', () => load.outcomes.length > killFrom + 20);
        const killedAt = performance.now();
        gateways[1]!.child.kill('SIGKILL');
        await gateways[1]!.exited;
        await until('load for 3 s after the kill', () => load.outcomes.some((o) => o.started > killedAt + 3000));
        killFailures = load.failures(killFrom);
        for (const f of killFailures) expect(f.started <= killedAt && f.ended >= killedAt).toBe(true);
        expect(killFailures.length).toBeLessThanOrEqual(WORKERS);
        await start(1);
        await until('the killed gateway back in rotation', async () => (await served(1)) > 0);
        const wholeFrom = load.outcomes.length;
        await until('load on the whole cluster again', () => load.outcomes.length > wholeFrom + 40);
        expect(load.failures(wholeFrom)).toEqual([]);
      } finally {
        await load.stop();
      }

      // Every registration answered 201 is in the database.
      const acknowledged = load.outcomes.filter((o) => o.kind === 'register' && o.status === 201).map((o) => o.email!);
      expect(acknowledged.length).toBeGreaterThan(0);
      const stored = await sql<{ email: string }[]>`select email from users where email = any(${acknowledged})`;
      expect(new Set(stored.map((r) => r.email))).toEqual(new Set(acknowledged));

      // A password change on gateway 1 ends the other sessions on all three within a second.
      const email = uniqueEmail('cluster-change');
      const direct = gateways.map((g) => g.client);
      expect((await direct[0]!.form('/users/register', registration(email))).status).toBe(201);
      const signIn = async (c: Client) => (await c.form('/users/login', { email, password: STRONG })).cookie!;
      const [own, ...others] = await Promise.all([signIn(direct[0]!), signIn(direct[1]!), signIn(direct[2]!)]);
      const checkAll = () =>
        Promise.all(others.flatMap((cookie) => direct.map((c) => c.send('GET', '/users/me', { headers: { cookie } }))));
      // Each gateway has the sessions in its cache (the second round is answered from it).
      for (let round = 0; round < 2; round++)
        expect((await checkAll()).map((r) => r.status)).toEqual(Array(6).fill(200));
      const changed = await direct[0]!.form(
        '/users/change_password',
        { current_password: STRONG, new_password: STRONG2, confirm_password: STRONG2 },
        { headers: { cookie: own } },
      );
      expect(changed.status).toBe(200);
      const changedAt = performance.now();
      let statuses: number[] = [];
      await until('the other sessions to end everywhere', async () => {
        statuses = (await checkAll()).map((r) => r.status);
        return statuses.every((s) => s === 401);
      });
      const endedIn = performance.now() - changedAt;
      expect(endedIn).toBeLessThan(1000);
      console.info(
        `cluster: ${load.outcomes.length} requests through HAProxy (${answered()}); rolling restart: ${rolling} requests, none failed; ` +
          `SIGKILL: ${killFailures.length} in-flight request(s) failed; sessions ended on every gateway ${Math.round(endedIn)} ms after the change`,
      );

      // Each gateway's /metrics parses, and its counters moved.
      for (let i = 0; i < 3; i++) {
        const families = await metricsOf(i);
        expect(await served(i)).toBeGreaterThan(0);
        expect(total(families, 'accounts_session_cache_hits_total')).toBeGreaterThan(0);
        expect(total(families, 'accounts_outcomes_total', { action: 'sign_in', outcome: 'success' })).toBeGreaterThan(
          0,
        );
        expect(total(families, 'accounts_db_statement_duration_seconds')).toBeGreaterThan(0);
        expect(total(families, 'accounts_session_cache_invalidations_total')).toBeGreaterThan(0);
        expect(total(families, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      }
      const registrations = await Promise.all(
        [0, 1, 2].map(async (i) =>
          total(await metricsOf(i), 'accounts_outcomes_total', { action: 'registration', outcome: 'success' }),
        ),
      );
      expect(registrations.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      const changes = total(await metricsOf(0), 'accounts_outcomes_total', {
        action: 'password_change',
        outcome: 'success',
      });
      expect(changes).toBe(1);
    },
  );
});
