import { httpClient, type Client } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer, type Server } from '../src/server.js';
import { registration, SEED_HEADERS, STRONG, TEST_SECRET_KEY, uniqueEmail } from './support/gateway.js';
import { scrape, total } from './support/metrics.js';

// METRICS_PORT: /metrics on a listener of its own (never the public port), in the Prometheus
// text format, with counters that move and labels that never hold what a person typed or holds.

describe('metrics (METRICS_PORT)', () => {
  let server: Server;
  let client: Client;
  let metricsUrl: string;

  beforeAll(async () => {
    // The server opens its own database and hashing pool, so both are watched.
    server = await createServer(
      loadConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
        DATA_DIR: 'memory://',
        BCRYPT_COST: '4',
        HASH_WORKERS: '1',
        SERVE_WEB: 'false',
        LOG_LEVEL: 'silent',
        SECRET_KEY: TEST_SECRET_KEY,
        RATE_LIMIT_SIGN_IN: '2',
      }),
    );
    await server.start();
    client = httpClient((server.app.server.address() as { port: number }).port, { formHeaders: SEED_HEADERS });
    metricsUrl = server.metricsAddress()!;
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('counts outcomes, refusals, requests, hashing, statements and session checks; no label holds personal data', async () => {
    const email = uniqueEmail('metrics');
    const reg = await client.form('/users/register', registration(email));
    expect(reg.status).toBe(201);
    expect((await client.form('/users/login', { email, password: 'not the password at all' })).status).toBe(422);
    const signIn = await client.form('/users/login', { email, password: STRONG });
    expect(signIn.status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await client.send('GET', '/users/me', { headers: { cookie: signIn.cookie! } })).status).toBe(200);
    // Over the per-address limit of 2 sign-ins.
    expect((await client.form('/users/login', { email, password: STRONG })).status).toBe(429);
    // A path nobody routes, with an address in it, collapses into one label.
    expect((await client.send('GET', `/nothing/${encodeURIComponent(email)}`)).status).toBe(404);

    const text = await (await fetch(metricsUrl)).text();
    const families = await scrape(metricsUrl);
    expect(total(families, 'accounts_outcomes_total', { action: 'registration', outcome: 'success' })).toBe(1);
    expect(total(families, 'accounts_outcomes_total', { action: 'sign_in', outcome: 'success' })).toBe(1);
    expect(total(families, 'accounts_outcomes_total', { action: 'sign_in', outcome: 'validation_failed' })).toBe(1);
    expect(total(families, 'accounts_outcomes_total', { action: 'sign_in', outcome: 'rate_limited' })).toBe(1);
    expect(total(families, 'accounts_rate_limit_refusals_total', { action: 'signIn' })).toBe(1);
    expect(total(families, 'accounts_session_cache_hits_total')).toBeGreaterThanOrEqual(1);
    expect(total(families, 'accounts_db_statement_duration_seconds')).toBeGreaterThan(10);
    expect(total(families, 'accounts_db_pool_size', { driver: 'pglite' })).toBe(1);
    expect(total(families, 'accounts_hashing_workers')).toBe(1);
    expect(total(families, 'accounts_mail_deliveries_total')).toBeGreaterThanOrEqual(0);
    expect(total(families, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    // Histograms with labels, read from the text itself (the parser flattens their labels).
    expect(text).toMatch(
      /accounts_http_request_duration_seconds_count\{route="\/users\/me",method="GET",status_class="2xx"\} 2\n/,
    );
    expect(text).toMatch(
      /accounts_http_request_duration_seconds_count\{route="\(unmatched\)",method="GET",status_class="4xx"\} 1\n/,
    );
    expect(text).toMatch(/accounts_hashing_run_seconds_count\{pool="hashing"\} [1-9]/);
    expect(text).toMatch(/accounts_hashing_wait_seconds_count\{pool="estimating"\} 1\n/);

    const token = signIn.cookie!.split('=')[1]!;
    for (const personal of [email, encodeURIComponent(email), token, reg.json.user.id as string, '127.0.0.1'])
      expect(text.includes(personal), personal).toBe(false);
  });

  it('answers only on its own port', async () => {
    expect((await client.send('GET', '/metrics')).status).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    expect((await fetch(metricsUrl)).headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});
