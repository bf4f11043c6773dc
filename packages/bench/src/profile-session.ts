// `pnpm --filter @accounts/bench run profile`: where the CPU of GET /users/me goes. Starts the
// gateway's production build under `node --cpu-prof` on a fresh database (PGlite, or a new one
// on DATABASE_URL's server), registers the session accounts, sends BENCH_PROFILE_REQUESTS (default
// 50,000) bearer session checks at the bench's session connections, stops the gateway (which
// writes the profile) and sums the profile by the code the samples were in. Start-up and the
// registrations are in the profile too; with this many requests they are a few percent.
// BENCH_PROFILE=pages sends that many signed-out pages instead (GET /login and /register as a
// browser asks for them, no cookie), the bench's page scenario.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { formatProfile } from './cpu-profile.js';
import { browserRequests, SIGNED_OUT_PAGES } from './pages.js';
import { freshDatabase } from './databases.js';
import { buildGateway, startGateway } from './launch.js';
import { loadSettings } from './settings.js';
import { createAccounts, mixedRequests, sessionChecks } from './traffic.js';

const settings = loadSettings();
const requests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 50_000);
// BENCH_PROFILE=overload profiles registrations offered at BENCH_PROFILE_RATE a second (default
// 150, several times what the hashing can take) for BENCH_PROFILE_SECONDS (default 20) instead.
const overload = process.env.BENCH_PROFILE === 'overload';
const pages = process.env.BENCH_PROFILE === 'pages';
const dir = join(settings.resultsDir, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));

buildGateway((line) => console.error(`profile: ${line}`));
const db = await freshDatabase(settings.databaseUrl, 'profile');
try {
  const gateway = await startGateway(settings, db, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  try {
    const result = overload
      ? await autocannon({
          url: gateway.url,
          connections: Number(process.env.BENCH_PROFILE_RATE ?? 150),
          overallRate: Number(process.env.BENCH_PROFILE_RATE ?? 150),
          duration: Number(process.env.BENCH_PROFILE_SECONDS ?? 20),
          requests: mixedRequests({ weights: { register: 1 } }).requests,
        })
      : pages
        ? await autocannon({
            url: gateway.url,
            connections: settings.sessionConnections,
            amount: requests,
            requests: browserRequests(SIGNED_OUT_PAGES),
          })
        : await autocannon({
            url: gateway.url,
            connections: settings.sessionConnections,
            amount: requests,
            requests: sessionChecks(
              'bearer',
              (await createAccounts(gateway.url, settings.sessionAccounts, settings.workers * 2)).map((a) => a.token),
            ),
          });
    console.log(
      `${db.kind}: ${result['2xx']} × 2xx of ${result.requests.sent} in ${result.duration.toFixed(1)} s, p99 ${result.latency.p99} ms`,
    );
  } finally {
    await gateway.stop();
  }
  // The main thread's profile is the first one written (the hashing threads write their own).
  const [main] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  console.log(`${join(dir, main!)}\n${formatProfile(join(dir, main!), overload ? 0 : requests)}`);
} finally {
  await db.drop();
}
