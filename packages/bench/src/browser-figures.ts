// What the web app's end-to-end suite last measured in Chromium, for the benchmark's report: the
// Lighthouse scores of every page (e2e/lighthouse.test.ts) and the sign-in page's weight and
// largest paint on the slow profile (e2e/weight.test.ts). The browser runs belong to that suite
// (`npm test`, or `cd apps/web && npx vitest run -c vitest.e2e.config.ts e2e/lighthouse.test.ts
// e2e/weight.test.ts`); the report says when they ran, or that they have not.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Target } from './report.js';

const results = join(import.meta.dirname, '..', '..', '..', 'apps', 'web', 'test-results');

interface LighthouseFile {
  minScore: number;
  runs: { page: string; signedIn: boolean; scores: Record<string, number | null> }[];
}
interface WeightFile {
  loads: { page: string; jsGzipBytes: number; jsGzipBytesUntilUsable?: number; largestContentfulPaintMs: number }[];
}

function read<T>(name: string): { data: T; at: string } | null {
  const file = join(results, name);
  if (!existsSync(file)) return null;
  return { data: JSON.parse(readFileSync(file, 'utf8')) as T, at: statSync(file).mtime.toISOString().slice(0, 16) };
}

/** The browser targets, as the last end-to-end run left them; none when it has not run here. */
export function browserTargets(): Target[] {
  const targets: Target[] = [];
  const lighthouse = read<LighthouseFile>('lighthouse.json');
  if (lighthouse) {
    const { runs } = lighthouse.data;
    const worst = runs
      .flatMap((r) => Object.entries(r.scores).map(([category, s]) => ({ s: s ?? 0, at: `${r.page} ${category}` })))
      .sort((a, b) => a.s - b.s)[0];
    targets.push({
      name: `Lighthouse ≥ 95 in every category, ${runs.length} page loads signed out and in (e2e run of ${lighthouse.at} UTC)`,
      measured: worst ? `lowest ${Math.round(worst.s * 100)} (${worst.at})` : 'no page',
      pass: worst !== undefined && worst.s >= 0.95,
    });
  }
  const weight = read<WeightFile>('weight.json');
  const signIn = weight?.data.loads.find((l) => l.page === '/login');
  if (weight && signIn) {
    const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
    targets.push({
      name: `sign-in page's largest paint ≤ 1.5 s on the slow profile (e2e run of ${weight.at} UTC)`,
      measured: `${signIn.largestContentfulPaintMs} ms`,
      pass: signIn.largestContentfulPaintMs <= 1500,
    });
    // Older result files have only the total (the passkey code fetched once the page runs included).
    const usable = signIn.jsGzipBytesUntilUsable;
    if (usable !== undefined)
      targets.push({
        name: `sign-in page's scripts until it is usable ≤ 125 KB gzip (same run)`,
        measured: `${kb(usable)} (${kb(signIn.jsGzipBytes)} with the passkey code fetched after)`,
        pass: usable <= 125_000,
      });
  }
  return targets;
}
