// Measures the password estimator: start-up (ranking the dictionaries) and the time one judgement
// takes, for ordinary passphrases and for the slowest shapes found (digits, l33t, repeats) at the
// 64 characters the estimator reads. Run: pnpm --filter @accounts/validators estimator-cost
import { performance } from 'node:perf_hooks';
import { judgePassword } from '../src/password-policy.js';
import { passwordEstimator } from '../src/password-estimator.js';

const t0 = performance.now();
const estimator = passwordEstimator();
const startup = performance.now() - t0;

const cases: Record<string, string> = {
  passphrase: 'violet tractor sings at midnight',
  'weak (keyboard walk)': 'qwertyuiopasdfgh',
  'weak, with context': 'RosaParks19131955',
  '256 digits': '1'.repeat(256),
  '256 l33t symbols': 'p@$$w0rd!1l3t1!0o0@$'.repeat(13).slice(0, 256),
  '256 "a1"': 'a1'.repeat(128),
  '256 dates': '19851985'.repeat(32),
};
const ctx = { name: 'Rosa Parks', email: 'rosa.parks@example.com', realm: 'default' };
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`start-up: ${startup.toFixed(0)} ms`);
for (const [label, password] of Object.entries(cases)) {
  for (let i = 0; i < 3; i++) judgePassword(password, ctx, estimator); // warm up
  const runs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    judgePassword(password, ctx, estimator);
    runs.push(performance.now() - t);
  }
  console.log(`${label.padEnd(22)} median ${median(runs).toFixed(1)} ms, max ${Math.max(...runs).toFixed(1)} ms`);
}
