// The peer: a minimal better-auth server with email-and-password sign-up, set up as its docs
// suggest and as its users run it: its default password hash (scrypt through node:crypto, on
// libuv's thread pool). Env: PORT, and DATABASE_URL or DATA_DIR.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { toNodeHandler } from 'better-auth/node';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema.js';

const port = Number(process.env.PORT);
const ddl = readFileSync(new URL('./schema.sql', import.meta.url), 'utf8');

/** The same drivers as the gateway: postgres.js for PostgreSQL, else embedded PGlite. */
async function openDatabase() {
  if (process.env.DATABASE_URL) {
    const sql = postgres(process.env.DATABASE_URL, { max: 10, onnotice: () => {} });
    await sql.unsafe(ddl).simple();
    return { db: drizzlePostgres({ client: sql, schema }), close: () => sql.end({ timeout: 5 }) };
  }
  const client = new PGlite(process.env.DATA_DIR);
  await client.exec(ddl);
  return { db: drizzlePglite({ client, schema }), close: () => client.close() };
}

const database = await openDatabase();
const auth = betterAuth({
  baseURL: `http://127.0.0.1:${port}`,
  // A fixed secret is fine for a throwaway benchmark database.
  secret: 'bench-peer-secret-not-for-production-use',
  database: drizzleAdapter(database.db, { provider: 'pg', schema }),
  emailAndPassword: { enabled: true },
  // Like the gateway in the benchmark: no per-address limits.
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const handler = toNodeHandler(auth);
const server = createServer((req, res) => {
  if (req.url === '/healthz')
    return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  return void handler(req, res);
});
server.listen(port, '127.0.0.1');

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void database.close().then(() => process.exit(0)));
});
