import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, STRONG, uniqueEmail } from './support/gateway.js';
import { spawnGateway, type GatewayProcess } from './support/process.js';

// Traces from the build an operator runs, sent to an OTLP/HTTP receiver started here (the JSON
// the exporter sends by default): a sign-in's trace holds the request, the procedure, its SQL
// statements and the hashing, and nothing in it is a password, an email or a token.

const BUILT = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** A collector of OTLP/HTTP JSON: keeps every body as received, and the spans in them. */
async function startReceiver() {
  const bodies: string[] = [];
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(body);
        const parsed = JSON.parse(body) as {
          resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans.push(...(s.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value;

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build the gateway first (npm test does)`);
    receiver = await startReceiver();
    gateway = await spawnGateway(
      {
        DATA_DIR: 'memory://',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // The SDK's own variable: spans leave every 200 ms instead of 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      90_000,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await receiver?.close();
  });

  it('shows a sign-in: request, procedure, SQL statements, hashing wait and time; no secret in any attribute', async () => {
    const email = uniqueEmail('traced');
    expect((await gateway.client.form('/users/register', registration(email))).status).toBe(201);
    const signIn = await gateway.client.form('/users/login', { email, password: STRONG });
    expect(signIn.status).toBe(200);
    const token = signIn.cookie!.split('=')[1]!;
    expect((await gateway.client.send('GET', '/users/me', { headers: { cookie: signIn.cookie! } })).status).toBe(200);
    // A token in a query string (as in a mail's link) stays out of the trace.
    const linkToken = 'q'.repeat(43);
    await gateway.client.send('GET', `/users/email_change?token=${linkToken}`);

    const procedureOf = () => receiver.spans.find((s) => s.name === 'procedure account.signIn');
    const deadline = Date.now() + 30_000;
    while (!procedureOf() || !receiver.spans.some((s) => attribute(s, 'http.target') !== undefined)) {
      if (Date.now() > deadline) throw new Error(`no sign-in trace: ${receiver.spans.map((s) => s.name).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The rest of the request's spans arrive with it or in later batches (a parent ends after its
    // children, so on a loaded machine it may come seconds later): wait until the trace is whole,
    // every span's parent among them.
    const procedure = procedureOf()!;
    const traceOf = () => receiver.spans.filter((s) => s.traceId === procedure.traceId);
    const whole = () => {
      const ids = new Set(traceOf().map((s) => s.spanId));
      return traceOf().every((s) => !s.parentSpanId || ids.has(s.parentSpanId));
    };
    while (!whole()) {
      if (Date.now() > deadline)
        throw new Error(
          `the sign-in's trace stayed incomplete: ${traceOf()
            .map((s) => s.name)
            .join(', ')}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
    const trace = traceOf();
    const names = trace.map((s) => s.name);
    // http's server span, fastify's request span, the procedure, its statements and the hashing.
    expect(names).toEqual(expect.arrayContaining(['POST /users/login', 'request', 'hashing wait', 'hashing']));
    expect(names.filter((n) => n.startsWith('sql ')).length).toBeGreaterThan(2);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const ancestors = (s: OtlpSpan): string[] => {
      const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    const inProcedure = (s: OtlpSpan) => ancestors(s).includes('procedure account.signIn');
    for (const s of trace.filter((s) => s.name.startsWith('hashing')))
      expect(ancestors(s)).toContain('procedure account.signIn');
    expect(trace.filter((s) => s.name.startsWith('sql ') && inProcedure(s)).length).toBeGreaterThan(2);
    // Before the procedure only the realm's lookup may run (cached 5 s: on a slow machine the
    // cache can lapse between the registration and the sign-in); every other statement is its.
    for (const s of trace.filter((s) => s.name.startsWith('sql ') && !inProcedure(s)))
      expect(attribute(s, 'db.statement')?.stringValue).toMatch(/^select .* from "realms"/);
    expect(attribute(procedure, 'accounts.outcome')).toEqual({ stringValue: 'success' });
    const statement = trace.find((s) => s.name.startsWith('sql '))!;
    expect(attribute(statement, 'db.statement')?.stringValue).toMatch(/\$1/);

    // Nothing sent anywhere holds the password, the email, the session token or the link's token.
    const everything = receiver.bodies.join('\n');
    for (const secret of [STRONG, email, encodeURIComponent(email), token, linkToken])
      expect(everything.includes(secret), secret).toBe(false);
    // No header is recorded (a cookie or an authorization header would be one).
    const keys = new Set(receiver.spans.flatMap((s) => (s.attributes ?? []).map((a) => a.key)));
    expect([...keys].filter((k) => /header|cookie|authorization/i.test(k))).toEqual([]);
    expect(everything).not.toMatch(/session=/);

    // The request's log line carries its trace id.
    const traceIds = new Set(trace.map((s) => s.traceId));
    const logged = gateway.logs
      .filter((l) => l.includes('"msg":"request"') && l.includes('"/users/login"'))
      .map((l) => JSON.parse(l) as { trace_id?: string });
    expect(logged.some((l) => l.trace_id && traceIds.has(l.trace_id))).toBe(true);
  });
});
