// The floor: the least a server can do to answer GET /users/me on PostgreSQL. fastify and
// postgres.js, the gateway's session-join query (same tables, same conditions, the same columns
// read), nothing else: no hooks, no security headers, no logging, no validation layer. The
// gateway's rate is read against it. Env: PORT, DATABASE_URL, SESSION_IDLE_HOURS.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import postgres from 'postgres';

const port = Number(process.env.PORT);
const idleMs = Number(process.env.SESSION_IDLE_HOURS ?? 24 * 7) * 3600_000;
// The gateway's pool size (openDatabase's default).
const sql = postgres(/** @type {string} */ (process.env.DATABASE_URL), { max: 10, onnotice: () => {} });
const [realm] = await sql`select id, slug from realms where slug = 'default'`;
if (!realm) throw new Error('no default realm: start the floor on a migrated database');

const app = Fastify();
app.get('/healthz', () => ({ status: 'ok' }));
app.get('/users/me', async (req, reply) => {
  const m = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(req.headers.authorization ?? '');
  if (!m) return reply.code(401).send({ error: 'unauthenticated' });
  const now = Date.now();
  const [row] = await sql`
    select s.id, s.user_id, s.token_hash, s.created_at, s.last_seen_at, s.expires_at,
           u.id as uid, u.realm_id, u.name, u.email, u.password_hash, u.password_changed_at, u.created_at as user_created_at
    from sessions s inner join users u on u.id = s.user_id
    where s.token_hash = ${createHash('sha256')
      .update(/** @type {string} */ (m[1]))
      .digest('hex')} and u.realm_id = ${realm.id}
      and s.expires_at > ${new Date(now)} and s.last_seen_at > ${new Date(now - idleMs)}
    limit 1`;
  if (!row) return reply.code(401).send({ error: 'unauthenticated' });
  return { user: { id: row.uid, name: row.name, email: row.email, realm: realm.slug } };
});
await app.listen({ port, host: '127.0.0.1' });

async function shutdown() {
  await app.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
