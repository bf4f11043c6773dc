import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Capacity } from './capacity.js';
import type { DatabaseKind } from './databases.js';
import type { ScenarioResult } from './scenarios.js';

export interface Target {
  name: string;
  /** The measured figure, as shown. */
  measured: string;
  pass: boolean;
}

export interface BenchReport {
  meta: {
    date: string;
    command: string;
    node: string;
    cores: number;
    cpu: string;
    /** The machine's 1, 5 and 15 minute load averages when the run started. */
    loadAverage: number[];
    database: DatabaseKind;
    peerDatabase: DatabaseKind;
    bcryptCost: number;
    workers: number;
    hashQueueMax: number;
    scenarioSeconds: number;
    healthzIntervalMs: number;
    smoke: boolean;
  };
  capacity: Capacity;
  /** Measured again once the servers have stopped: a drift means the machine was not quiet. */
  capacityAfter: Capacity;
  scenarios: ScenarioResult[];
  peer: ScenarioResult;
  /** Our registrations per second over the peer's. */
  peerRatio: number;
  targets: Target[];
}

const HEALTHZ_P99_MS = 25;
const LOOP_DELAY_P99_MS = 20;
const THROUGHPUT_RATIO = 0.85;
const PEER_RATIO = 1.8;
// Settled RSS may grow this much from after the first scenario to after the last.
const RSS_GROWTH = 1.25;

// Capacity before and after the servers differing by more than this: other work shared the CPU.
export const DRIFT_WARNING = 0.1;

const fixed = (n: number, digits = 1) => n.toFixed(digits);
export const capacityDrift = (r: Pick<BenchReport, 'capacity' | 'capacityAfter'>) =>
  Math.abs(r.capacityAfter.hashesPerSecond / r.capacity.hashesPerSecond - 1);
const isExpected = (code: number) => (code >= 200 && code < 300) || (code >= 400 && code < 500) || code === 503;

export function evaluateTargets(scenarios: ScenarioResult[], peerRatio: number): Target[] {
  const byName = (name: string) => {
    const found = scenarios.find((s) => s.name === name);
    if (!found) throw new Error(`no scenario "${name}"`);
    return found;
  };
  const throughput = (name: string, label: string): Target => {
    const r = byName(name).capacityRatio;
    return { name: `${label} ≥ ${THROUGHPUT_RATIO}`, measured: fixed(r, 2), pass: r >= THROUGHPUT_RATIO };
  };
  const worst = (metric: (s: ScenarioResult) => number) => scenarios.reduce((a, b) => (metric(b) > metric(a) ? b : a));
  const healthz = worst((s) => s.healthzMs.p99);
  const loop = worst((s) => s.eventLoopDelayMs.p99);
  const unexpected = scenarios.flatMap((s) => [
    ...Object.entries(s.statusCodes)
      .filter(([code]) => !isExpected(Number(code)))
      .map(([code, n]) => `${s.name}: ${code}×${n}`),
    ...(s.errors ? [`${s.name}: ${s.errors} socket errors/timeouts`] : []),
  ]);
  const first = scenarios[0]!;
  const last = scenarios.at(-1)!;
  return [
    throughput('registration', 'registration / capacity'),
    throughput('sign-in', 'sign-in / capacity'),
    throughput('change password', 'change password / ½ capacity'),
    {
      name: `/healthz p99 < ${HEALTHZ_P99_MS} ms in every scenario`,
      measured: `${fixed(healthz.healthzMs.p99)} ms (worst: ${healthz.name})`,
      pass: healthz.healthzMs.p99 < HEALTHZ_P99_MS,
    },
    {
      name: `event-loop delay p99 < ${LOOP_DELAY_P99_MS} ms in every scenario`,
      measured: `${fixed(loop.eventLoopDelayMs.p99)} ms (worst: ${loop.name})`,
      pass: loop.eventLoopDelayMs.p99 < LOOP_DELAY_P99_MS,
    },
    {
      name: 'only 2xx, 4xx and 503 answers; no socket errors',
      measured: unexpected.length ? unexpected.join('; ') : 'none other',
      pass: unexpected.length === 0,
    },
    {
      name: `memory flat: settled RSS after "${last.name}" ≤ ${RSS_GROWTH} × after "${first.name}"`,
      measured: `${fixed(first.rssSettledMB, 0)} → ${fixed(last.rssSettledMB, 0)} MB (peak ${fixed(Math.max(...scenarios.map((s) => s.rssPeakMB)), 0)} MB)`,
      pass: last.rssSettledMB <= first.rssSettledMB * RSS_GROWTH,
    },
    { name: `registrations/s ≥ ${PEER_RATIO} × better-auth's`, measured: `${fixed(peerRatio, 2)}×`, pass: peerRatio >= PEER_RATIO },
  ];
}

const statuses = (s: ScenarioResult) =>
  [
    ...Object.entries(s.statusCodes).map(([code, n]) => `${code}×${n}`),
    ...(s.timeouts ? [`timeout×${s.timeouts}`] : []),
    ...(s.errors - s.timeouts ? [`error×${s.errors - s.timeouts}`] : []),
  ].join(' ');

const DB_NAMES: Record<DatabaseKind, string> = { pglite: 'embedded PGlite', postgres: 'PostgreSQL' };

export function toMarkdown(r: BenchReport): string {
  const m = r.meta;
  const row = (s: ScenarioResult, label: string) =>
    `| ${label} | ${s.connections} | ${fixed(s.offeredRps)} | ${fixed(s.rps)} | ${fixed(s.capacityRatio, 2)} | ${fixed(s.latencyMs.p50, 0)} | ${fixed(s.latencyMs.p99, 0)} | ${fixed(s.latencyMs.max, 0)} | ${statuses(s)} | ${fixed(s.healthzMs.p99)} | ${fixed(s.eventLoopDelayMs.p99)} | ${fixed(s.rssPeakMB, 0)} |`;
  return [
    `### ${DB_NAMES[m.database]}: ${m.date.slice(0, 10)}${m.smoke ? ' (smoke run)' : ''}`,
    '',
    `\`${m.command}\` · Node ${m.node} · ${m.cores} cores (${m.cpu}), load average ${m.loadAverage.map((l) => fixed(l, 2)).join(' ')} at the start · bcrypt cost ${m.bcryptCost} · ${m.workers} hashing threads · ${m.scenarioSeconds} s per scenario`,
    '',
    `Raw capacity: **${fixed(r.capacity.hashesPerSecond)} bcrypt hashes/s** (${r.capacity.workers} threads, nothing else running); ${fixed(r.capacityAfter.hashesPerSecond)} when measured again at the end${capacityDrift(r) > DRIFT_WARNING ? ' — **the machine was not quiet: read the ratios with care**' : ''}.`,
    '',
    '| scenario | conns | offered/s | 2xx/s | × capacity | p50 ms | p99 ms | max ms | statuses | /healthz p99 ms | loop delay p99 ms | RSS peak MB |',
    '| --- | --: | --: | --: | --: | --: | --: | --: | --- | --: | --: | --: |',
    ...r.scenarios.map((s) => row(s, s.name === 'change password' ? 'change password (× ½ capacity)' : s.name)),
    row(r.peer, `better-auth registration (${DB_NAMES[m.peerDatabase]})`),
    '',
    `Our registrations/s over better-auth's: **${fixed(r.peerRatio, 2)}×**.`,
    '',
    '| target | measured | met |',
    '| --- | --- | --- |',
    ...r.targets.map((t) => `| ${t.name} | ${t.measured} | ${t.pass ? 'yes' : '**no**'} |`),
    '',
  ].join('\n');
}

/** Writes <name>.json and <name>.md, each through a temporary file so a killed run leaves no half file. */
export async function writeReport(dir: string, name: string, report: BenchReport): Promise<{ json: string; md: string }> {
  await mkdir(dir, { recursive: true });
  const put = async (file: string, text: string) => {
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
    return file;
  };
  return {
    json: await put(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`),
    md: await put(join(dir, `${name}.md`), toMarkdown(report)),
  };
}
