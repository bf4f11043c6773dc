import { startServer, freePort } from './src/servers.js';
import { freshDatabase } from './src/databases.js';
import { loadSettings } from './src/settings.js';
import { runScenario, warmUp } from './src/scenarios.js';
const s = loadSettings();
const db = await freshDatabase(process.env.PGURL, 'dbg');
const port = await freePort();
const gw = await startServer({ name: 'gw', entry: '/work/main/apps/gateway/dist/main.js', cwd: '/work/main', port, env: { PATH: process.env.PATH, ...db.env, PORT: String(port), LOG_LEVEL: 'warn', BCRYPT_COST: String(s.cost), RATE_LIMIT_REGISTER: '0', RATE_LIMIT_SIGN_IN: '0', RATE_LIMIT_CHANGE_PASSWORD: '0', ACCOUNT_MAX_FAILURES: '1000', PASSWORD_PEPPER: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' } });
try {
  await warmUp(gw, s);
  const sc = process.env.SC === 'over' ? { name: 'overload', weights: { register: 1 }, connections: 170, overallRate: 170 } : { name: 'registration', weights: { register: 1 }, connections: 8 };
  const r = await runScenario(gw, sc as never, s, 26);
  console.log(r.name, 'rps', r.rps.toFixed(1), 'healthz', JSON.stringify(r.healthzMs), 'eld', JSON.stringify(r.eventLoopDelayMs), r.statusCodes);
} finally { await gw.stop(); await db.drop(); }
