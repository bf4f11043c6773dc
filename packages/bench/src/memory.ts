// `npx pnpm run memory` (in packages/bench): the gateway's resident memory on embedded PGlite as
// `npm start` runs it, on the Node.js that runs this program (the project's own through pnpm;
// `node --import tsx src/memory.ts` runs it on another, to compare): once quiet after a first start
// on a new data directory, after BENCH_MEMORY_ACCOUNTS registrations and BENCH_MEMORY_REQUESTS
// signed-in reads (GET /users/me, /users/activity and /users/sessions in turn, one at a time), and
// after a restart on the same directory; BENCH_ROUNDS times over.
import { freshDatabase } from './databases.js';
import { buildGateway, startGateway } from './launch.js';
import { loadSettings } from './settings.js';
import { createAccounts } from './traffic.js';

const log = (line: string) => console.error(`bench: ${line}`);
const count = (name: string, fallback: number) => Math.max(1, Math.round(Number(process.env[name] ?? fallback)));
const accounts = count('BENCH_MEMORY_ACCOUNTS', 20);
const requests = count('BENCH_MEMORY_REQUESTS', 300);
const rounds = count('BENCH_ROUNDS', 1);
// BCRYPT_COST and HASH_WORKERS as the benchmark takes them (cost 10, a thread per core, unless set).
const settings = loadSettings();
const reads = ['/users/me', '/users/activity', '/users/sessions'];

buildGateway(log);
const mb = (n: number) => Math.round(n);
for (let round = 1; round <= rounds; round++) {
  const db = await freshDatabase(undefined, 'memory');
  try {
    let gateway = await startGateway(settings, db);
    const afterStart = (await gateway.settle()).rssMB;
    const made = await createAccounts(gateway.url, accounts, 2);
    for (let i = 0; i < requests; i++) {
      const res = await fetch(gateway.url + reads[i % reads.length]!, {
        headers: { authorization: `Bearer ${made[i % made.length]!.token}`, accept: 'application/json' },
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`GET ${reads[i % reads.length]} answered ${res.status}`);
    }
    const afterRequests = (await gateway.settle()).rssMB;
    await gateway.stop();
    gateway = await startGateway(settings, db);
    const afterRestart = (await gateway.settle()).rssMB;
    await gateway.stop();
    console.log(
      `Node ${process.version}, round ${round}: ${mb(afterStart)} MB after start on a new data directory, ` +
        `${mb(afterRequests)} MB after ${accounts} registrations and ${requests} reads, ` +
        `${mb(afterRestart)} MB after a restart on it`,
    );
  } finally {
    await db.drop();
  }
}
