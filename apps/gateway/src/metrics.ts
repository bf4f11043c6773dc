import {
  outboxBacklog,
  sessionCacheOf,
  type Database,
  type Hasher,
  type HashingObserver,
  type ProcedureObserver,
} from '@accounts/api';
import type { QueryObserver } from '@accounts/db';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// What an operator sees of one gateway (METRICS_PORT; docs/operations.md#metrics lists each).
// One registry per server, so several servers in one process (the tests) never mix their counts.
// Labels hold only names the code chose (routes, procedures, problem codes): never an email, a
// token, an address or an id.

/** The procedures whose outcomes are counted, by the action an operator knows them as. */
const COUNTED: Record<string, string> = {
  'account.signIn': 'sign_in',
  'passkeys.signIn': 'passkey_sign_in',
  'account.register': 'registration',
  'account.signInSecondStep': 'second_step',
  'passkeys.secondStep': 'second_step',
  'account.changePassword': 'password_change',
};

/** Seconds: from a cheap session check (~1 ms) to a bcrypt wait under load (seconds). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: one bcrypt of cost 11 takes ~0.1 s on a core. */
const HASHING_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];
const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

export interface Metrics {
  registry: Registry;
  procedures: ProcedureObserver;
  hashing: HashingObserver;
  statements: QueryObserver;
  /** One answered request; `route` is a template or a fixed name (never a raw path). */
  request(route: string, method: string, status: number, seconds: number): void;
  rateLimited: (action: string) => void;
  mailSent(): void;
  mailFailed(gaveUp: boolean): void;
  /** Reads, at each scrape, what these hold now: queues, the outbox, the session cache, the pool. */
  watch(sources: { db: Database; hasher: Hasher; poolSize: number; driver: string }): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Histogram({
    name: 'accounts_http_request_duration_seconds',
    help: 'Time to answer a request, by route template, method and status class',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const outcomes = new Counter({
    name: 'accounts_outcomes_total',
    help: 'Sign-ins, registrations, second steps and password changes, by outcome (success or the problem code)',
    labelNames: ['action', 'outcome'] as const,
    registers,
  });
  const lockouts = new Counter({
    name: 'accounts_lockout_refusals_total',
    help: 'Password or code checks refused by the lockout (429 too_many_attempts), by procedure',
    labelNames: ['procedure'] as const,
    registers,
  });
  const rateLimits = new Counter({
    name: 'accounts_rate_limit_refusals_total',
    help: 'Requests refused by a per-address or per-account rate limit (429 rate_limited), by action',
    labelNames: ['action'] as const,
    registers,
  });
  const hashingWait = new Histogram({
    name: 'accounts_hashing_wait_seconds',
    help: 'Time a task waited for a thread, by pool (hashing: bcrypt; estimating: password estimates)',
    labelNames: ['pool'] as const,
    buckets: HASHING_BUCKETS,
    registers,
  });
  const hashingRun = new Histogram({
    name: 'accounts_hashing_run_seconds',
    help: 'Time a task ran on its thread, by pool',
    labelNames: ['pool'] as const,
    buckets: HASHING_BUCKETS,
    registers,
  });
  const mailSent = new Counter({ name: 'accounts_mail_deliveries_total', help: 'Mails delivered', registers });
  const mailFailed = new Counter({
    name: 'accounts_mail_failures_total',
    help: 'Failed delivery attempts; final="true": the last attempt, the mail is given up',
    labelNames: ['final'] as const,
    registers,
  });
  const statements = new Histogram({
    name: 'accounts_db_statement_duration_seconds',
    help: 'Time from sending an SQL statement to its answer (including the wait for a pooled connection)',
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  const statementErrors = new Counter({
    name: 'accounts_db_statement_errors_total',
    help: 'SQL statements that failed (unreachable database, conflicts, timeouts)',
    registers,
  });
  let inFlight = 0;
  new Gauge({
    name: 'accounts_db_statements_in_flight',
    help: 'SQL statements sent and not yet answered: beyond the pool size, statements wait for a connection',
    registers,
    collect() {
      this.set(inFlight);
    },
  });

  return {
    registry,
    procedures: {
      procedure: (_path, run) => run(),
      outcome(path, outcome) {
        const action = COUNTED[path];
        if (action) outcomes.inc({ action, outcome });
        if (outcome === 'too_many_attempts') lockouts.inc({ procedure: path });
      },
    },
    hashing: {
      task(pool, { queued, began, ended }) {
        hashingWait.observe({ pool }, Math.max(0, began - queued) / 1000);
        hashingRun.observe({ pool }, Math.max(0, ended - began) / 1000);
      },
    },
    statements: {
      statement() {
        inFlight++;
        const end = statements.startTimer();
        return (error) => {
          inFlight--;
          end();
          if (error) statementErrors.inc();
        };
      },
    },
    request(route, method, status, seconds) {
      requests.observe({ route, method, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    },
    rateLimited: (action) => rateLimits.inc({ action }),
    mailSent: () => mailSent.inc(),
    mailFailed: (gaveUp) => mailFailed.inc({ final: String(gaveUp) }),
    watch({ db, hasher, poolSize, driver }) {
      const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
        new Gauge({
          name,
          help,
          registers,
          async collect() {
            // An unreachable database leaves the last value: the scrape itself still answers.
            this.set(
              await Promise.resolve()
                .then(read)
                .catch(() => NaN),
            );
          },
        });
      // Totals kept elsewhere (the hasher, the session cache), shown as counters at each scrape.
      const total = (name: string, help: string, read: () => number) =>
        new Counter({
          name,
          help,
          registers,
          collect() {
            this.reset();
            this.inc(read());
          },
        });
      gauge('accounts_hashing_workers', 'Threads hashing passwords', () => hasher.stats().workers);
      gauge('accounts_hashing_queue_length', 'Hashing tasks waiting for a thread', () => hasher.stats().queued);
      gauge(
        'accounts_hashing_queue_max',
        'Past this many waiting, requests are refused with 503 server_busy',
        () => hasher.stats().queueMax,
      );
      gauge(
        'accounts_password_estimates_queued',
        'New passwords waiting for their estimate',
        () => hasher.stats().estimatesQueued,
      );
      total(
        'accounts_hashing_busy_refusals_total',
        'Requests refused with 503 server_busy: a hashing queue was full',
        () => hasher.stats().refused,
      );
      const cache = () => sessionCacheOf(db)?.counts();
      total('accounts_session_cache_hits_total', 'Session checks answered from memory', () => cache()?.hits ?? 0);
      total(
        'accounts_session_cache_misses_total',
        'Session checks that asked the database',
        () => cache()?.misses ?? 0,
      );
      total(
        'accounts_session_cache_invalidations_total',
        'Cached sessions dropped because the database announced a change to them or their account',
        () => cache()?.invalidations ?? 0,
      );
      gauge('accounts_session_cache_entries', 'Sessions held in memory', () => cache()?.size ?? 0);
      new Gauge({
        name: 'accounts_db_pool_size',
        help: 'Connections this process may open (PGlite: its one in-process connection)',
        labelNames: ['driver'] as const,
        registers,
        collect() {
          this.set({ driver }, poolSize);
        },
      });
      // One query per scrape for both: the outbox's unsent rows are few and indexed.
      let backlog: Promise<{ pending: number; oldestSeconds: number }> | null = null;
      const readBacklog = () => (backlog ??= outboxBacklog(db).finally(() => setImmediate(() => (backlog = null))));
      gauge(
        'accounts_mail_outbox_pending',
        'Mails waiting to be sent (or retried)',
        async () => (await readBacklog()).pending,
      );
      gauge(
        'accounts_mail_outbox_oldest_pending_seconds',
        'How long the oldest unsent mail has waited',
        async () => (await readBacklog()).oldestSeconds,
      );
    },
  };
}
