import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseKind } from './databases.js';
import type { EnumerationTiming } from './enumeration.js';
import { PAGE_SCENARIO, STATIC_SCENARIO } from './pages.js';
import { REGISTRATION_DOUBLE, type ScenarioResult } from './scenarios.js';

export interface Target {
  name: string;
  /** The measured figure, as shown. */
  measured: string;
  pass: boolean;
}

/** One whole run: fresh servers and databases, its own capacity measurements. */
export interface RunResult {
  date: string;
  /** The machine's 1, 5 and 15 minute load averages before and after the run. */
  loadAverage: { before: number[]; after: number[] };
  /** Raw bcrypt capacity (hashes/s), measured before the first hashing scenario and after each. */
  capacities: number[];
  /** Every scenario of every server: the gateway's, the floor's, better-auth's. */
  scenarios: ScenarioResult[];
  /** Known against unknown emails, timed on the gateway one request at a time. */
  enumeration: EnumerationTiming[];
  /** The gateway's resident memory: settled after start on a new database, after a restart on the same one, and the highest seen under load. */
  memory: { startFreshMB: number; startExistingMB: number; peakMB: number };
}

export interface BenchReport {
  meta: {
    date: string;
    command: string;
    node: string;
    cores: number;
    cpu: string;
    database: DatabaseKind;
    bcryptCost: number;
    workers: number;
    hashQueueMax: number;
    scenarioSeconds: number;
    capacitySeconds: number;
    sessionConnections: number;
    healthzIntervalMs: number;
    smoke: boolean;
  };
  runs: RunResult[];
  summary: SummaryRow[];
  memory: { startFreshMB: Spread; startExistingMB: Spread; peakMB: Spread };
  targets: Target[];
}

/** The median of the runs, with the lowest and highest. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface SummaryRow {
  server: string;
  name: string;
  connections: number;
  rps: Spread;
  capacityRatio: Spread | null;
  p50: Spread;
  p99: Spread;
  healthzP99: Spread;
  loopDelayP99: Spread;
  rssPeakMB: Spread;
  /** Status counts (and errors) summed over the runs. */
  statuses: Record<string, number>;
}

const HEALTHZ_P99_MS = 25;
const LOOP_DELAY_P99_MS = 20;
const THROUGHPUT_RATIO = 0.92;
const SESSION_FLOOR_RATIO = 0.5;
const SESSION_PGLITE_RPS = 3000;
const SESSION_P99_MS = 15;
// A signed-out page against a static file of the same server, both asked for as a browser does.
const PAGE_STATIC_RATIO = 0.5;
const PGLITE_START_MB = 250;
const PGLITE_PEAK_MB = 350;
// Settled RSS may grow this much from after the first scenario to after the last hashing one.
const RSS_GROWTH = 1.25;
// A known email's median time over an unknown one's, both ways.
const ENUMERATION_RATIO = 1.25;

const fixed = (n: number, digits = 1) => n.toFixed(digits);

export function spread(values: number[]): Spread {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  return { median, min: v[0]!, max: v.at(-1)! };
}

/** "12.3 (11.9–12.8)": the median, and the range over the runs when there are several. */
export const showSpread = (s: Spread, digits = 1) =>
  s.min === s.max
    ? fixed(s.median, digits)
    : `${fixed(s.median, digits)} (${fixed(s.min, digits)}–${fixed(s.max, digits)})`;

const isExpected = (code: number) => (code >= 200 && code < 300) || (code >= 400 && code < 500) || code === 503;

export function summarise(runs: RunResult[]): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const first of runs[0]!.scenarios) {
    const all = runs
      .map((r) => r.scenarios.find((s) => s.server === first.server && s.name === first.name))
      .filter((s): s is ScenarioResult => !!s);
    const of = (f: (s: ScenarioResult) => number) => spread(all.map(f));
    const statuses: Record<string, number> = {};
    for (const s of all) {
      for (const [code, n] of Object.entries(s.statusCodes)) statuses[code] = (statuses[code] ?? 0) + n;
      if (s.timeouts) statuses.timeout = (statuses.timeout ?? 0) + s.timeouts;
      if (s.errors - s.timeouts) statuses.error = (statuses.error ?? 0) + s.errors - s.timeouts;
    }
    rows.push({
      server: first.server,
      name: first.name,
      connections: first.connections,
      rps: of((s) => s.rps),
      capacityRatio: first.capacity === null ? null : of((s) => s.capacityRatio),
      p50: of((s) => s.latencyMs.p50),
      p99: of((s) => s.latencyMs.p99),
      healthzP99: of((s) => s.healthzMs.p99),
      loopDelayP99: of((s) => s.eventLoopDelayMs.p99),
      rssPeakMB: of((s) => s.rssPeakMB),
      statuses,
    });
  }
  return rows;
}

export function evaluateTargets(
  database: DatabaseKind,
  runs: RunResult[],
  rows: SummaryRow[],
  memory: BenchReport['memory'],
): Target[] {
  const row = (server: string, name: string) => {
    const found = rows.find((s) => s.server === server && s.name === name);
    if (!found) throw new Error(`no scenario "${server}: ${name}"`);
    return found;
  };
  const throughput = (name: string, label: string): Target => {
    const r = row('gateway', name).capacityRatio!;
    return { name: `${label} ≥ ${THROUGHPUT_RATIO}`, measured: showSpread(r, 2), pass: r.median >= THROUGHPUT_RATIO };
  };
  const hashing = rows.filter((r) => r.server === 'gateway' && r.capacityRatio !== null);
  const worst = (metric: (s: SummaryRow) => number) => hashing.reduce((a, b) => (metric(b) > metric(a) ? b : a));
  const healthz = worst((s) => s.healthzP99.median);
  const loop = worst((s) => s.loopDelayP99.median);
  const unexpected = rows.flatMap((s) =>
    Object.entries(s.statuses)
      .filter(([code]) => !isExpected(Number(code)))
      .map(([code, n]) => `${s.server} ${s.name}: ${code}×${n}`),
  );
  const floor = rows.find((s) => s.server === 'floor');
  const session = (style: string): Target[] => {
    const me = row('gateway', `GET /users/me (${style})`);
    const rate: Target = floor
      ? {
          name: `GET /users/me (${style}) ≥ ${SESSION_FLOOR_RATIO} × the floor server's req/s`,
          measured: `${showSpread(me.rps, 0)} vs ${showSpread(floor.rps, 0)} req/s: ${fixed(me.rps.median / floor.rps.median, 2)}×`,
          pass: me.rps.median >= SESSION_FLOOR_RATIO * floor.rps.median,
        }
      : {
          name: `GET /users/me (${style}) ≥ ${SESSION_PGLITE_RPS} req/s`,
          measured: `${showSpread(me.rps, 0)} req/s`,
          pass: me.rps.median >= SESSION_PGLITE_RPS,
        };
    return [
      rate,
      {
        name: `GET /users/me (${style}) p99 ≤ ${SESSION_P99_MS} ms`,
        measured: `${showSpread(me.p99, 0)} ms`,
        pass: me.p99.median <= SESSION_P99_MS,
      },
    ];
  };
  const first = hashing[0]!;
  const last = hashing.at(-1)!;
  const settled = (name: string) =>
    spread(runs.map((r) => r.scenarios.find((s) => s.server === 'gateway' && s.name === name)!.rssSettledMB));
  const targets: Target[] = [
    throughput('registration', 'registration / capacity'),
    throughput(REGISTRATION_DOUBLE, `registration at twice the connections / capacity`),
    throughput('sign-in', 'sign-in / capacity'),
    throughput('change password', 'change password / ½ capacity'),
    {
      name: `/healthz p99 < ${HEALTHZ_P99_MS} ms in every hashing scenario (5× overload included)`,
      measured: `${showSpread(healthz.healthzP99)} ms (worst: ${healthz.name})`,
      pass: healthz.healthzP99.median < HEALTHZ_P99_MS,
    },
    {
      name: `event-loop delay p99 < ${LOOP_DELAY_P99_MS} ms in every hashing scenario`,
      measured: `${showSpread(loop.loopDelayP99)} ms (worst: ${loop.name})`,
      pass: loop.loopDelayP99.median < LOOP_DELAY_P99_MS,
    },
    {
      name: '5× overload: the excess refused at once with 503',
      measured: `${row('gateway', 'overload 5×').statuses['503'] ?? 0} × 503, p99 of all answers ${showSpread(row('gateway', 'overload 5×').p99, 0)} ms`,
      pass: (row('gateway', 'overload 5×').statuses['503'] ?? 0) > 0,
    },
    ...session('bearer'),
    ...session('cookie'),
    {
      name: 'only 2xx, 4xx and 503 answers; no socket errors or time-outs',
      measured: unexpected.length ? unexpected.join('; ') : 'none other',
      pass: unexpected.length === 0,
    },
    {
      name: `memory flat: settled RSS after "${last.name}" ≤ ${RSS_GROWTH} × after "${first.name}"`,
      measured: `${showSpread(settled(first.name), 0)} → ${showSpread(settled(last.name), 0)} MB`,
      pass: settled(last.name).median <= settled(first.name).median * RSS_GROWTH,
    },
  ];
  const pages = summarisePages(runs, rows);
  if (pages)
    targets.push(
      {
        name: `signed-out page ≥ ${PAGE_STATIC_RATIO} × the same server's static script file (req/s, as a browser asks, ${pages.page.connections} connections)`,
        measured: `${showSpread(pages.page.rps, 0)} vs ${showSpread(pages.file.rps, 0)} req/s: ${showSpread(pages.ratio, 2)}×`,
        pass: pages.ratio.median >= PAGE_STATIC_RATIO,
      },
      {
        name: `/healthz p99 < ${HEALTHZ_P99_MS} ms while signed-out pages load`,
        measured: `${showSpread(pages.page.healthzP99)} ms (the pages' own p99 ${showSpread(pages.page.p99, 0)} ms)`,
        pass: pages.page.healthzP99.median < HEALTHZ_P99_MS,
      },
    );
  for (const e of summariseEnumeration(runs)) {
    targets.push({
      name: `${e.name}: an email with an account answers in ${fixed(1 / ENUMERATION_RATIO, 2)}–${ENUMERATION_RATIO} × the median time of one without, with the same status`,
      measured: `${showSpread(e.ratio, 2)}× (${showSpread(e.knownMs)} vs ${showSpread(e.unknownMs)} ms; statuses ${e.statuses.known} / ${e.statuses.unknown})`,
      pass:
        e.ratio.median <= ENUMERATION_RATIO &&
        e.ratio.median >= 1 / ENUMERATION_RATIO &&
        e.statuses.known === e.statuses.unknown,
    });
  }
  if (database === 'pglite') {
    targets.push(
      {
        name: `RSS after start ≤ ${PGLITE_START_MB} MB, new data directory`,
        measured: `${showSpread(memory.startFreshMB, 0)} MB`,
        pass: memory.startFreshMB.max <= PGLITE_START_MB,
      },
      {
        name: `RSS after start ≤ ${PGLITE_START_MB} MB, existing data directory`,
        measured: `${showSpread(memory.startExistingMB, 0)} MB`,
        pass: memory.startExistingMB.max <= PGLITE_START_MB,
      },
      {
        name: `RSS peak ≤ ${PGLITE_PEAK_MB} MB`,
        measured: `${showSpread(memory.peakMB, 0)} MB`,
        pass: memory.peakMB.max <= PGLITE_PEAK_MB,
      },
    );
  }
  return targets;
}

/**
 * Signed-out pages against the static script file, per run (both measured in the same run, one
 * after the other): the ratio of their req/s, and the pages' figures.
 */
export function summarisePages(runs: RunResult[], rows: SummaryRow[]) {
  const page = rows.find((s) => s.server === 'gateway' && s.name === PAGE_SCENARIO);
  const file = rows.find((s) => s.server === 'gateway' && s.name === STATIC_SCENARIO);
  if (!page || !file) return null;
  const rps = (r: RunResult, name: string) => r.scenarios.find((s) => s.server === 'gateway' && s.name === name)?.rps;
  const ratios = runs.flatMap((r) => {
    const [p, f] = [rps(r, PAGE_SCENARIO), rps(r, STATIC_SCENARIO)];
    return p !== undefined && f ? [p / f] : [];
  });
  return ratios.length ? { page, file, ratio: spread(ratios) } : null;
}

/** Each enumeration probe over the runs: the per-run medians and their ratio. */
export function summariseEnumeration(runs: RunResult[]) {
  return runs[0]!.enumeration.map(({ name, samples }) => {
    const all = runs.map((r) => r.enumeration.find((e) => e.name === name)!);
    const statuses = (kind: 'known' | 'unknown') =>
      [...new Set(all.flatMap((e) => Object.keys(e.statuses[kind])))].join(' ');
    return {
      name,
      samples,
      knownMs: spread(all.map((e) => e.knownMs.median)),
      unknownMs: spread(all.map((e) => e.unknownMs.median)),
      ratio: spread(all.map((e) => e.ratio)),
      statuses: { known: statuses('known'), unknown: statuses('unknown') },
    };
  });
}

const statuses = (s: SummaryRow) =>
  Object.entries(s.statuses)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');

/** The pages against the static file, under the scenarios' table. */
function pageLines(r: BenchReport): string[] {
  const pages = summarisePages(r.runs, r.summary);
  if (!pages) return [];
  const script = r.runs[0]!.scenarios.find((s) => s.name === STATIC_SCENARIO)?.paths?.[0] ?? 'the page script';
  return [
    `Signed-out pages against \`${script}\` on the same server, both as a browser asks (no cookie), ${pages.page.connections} connections: ` +
      `${showSpread(pages.page.rps, 0)} vs ${showSpread(pages.file.rps, 0)} req/s, ${showSpread(pages.ratio, 2)}× (per run); ` +
      `page p99 ${showSpread(pages.page.p99, 0)} ms, \`/healthz\` p99 ${showSpread(pages.page.healthzP99)} ms meanwhile.`,
    '',
  ];
}

const DB_NAMES: Record<DatabaseKind, string> = { pglite: 'embedded PGlite', postgres: 'PostgreSQL' };

export function toMarkdown(r: BenchReport): string {
  const m = r.meta;
  const show = (s: Spread | null, digits = 1) => (s ? showSpread(s, digits) : '—');
  const row = (s: SummaryRow) =>
    `| ${s.server} | ${s.name === 'change password' ? 'change password (× ½ capacity)' : s.name} | ${s.connections} | ${show(s.rps)} | ${show(s.capacityRatio, 2)} | ${show(s.p50, 0)} | ${show(s.p99, 0)} | ${statuses(s)} | ${show(s.healthzP99)} | ${show(s.loopDelayP99)} | ${show(s.rssPeakMB, 0)} |`;
  const load = (l: number[]) => l.map((x) => fixed(x, 2)).join(' ');
  const find = (server: string, name: string) => r.summary.find((s) => s.server === server && s.name === name);
  const ratio = (a?: SummaryRow, b?: SummaryRow) =>
    a && b && b.rps.median > 0 ? `${fixed(a.rps.median / b.rps.median, 2)}×` : '—';
  const ours = {
    reg: find('gateway', 'registration'),
    me: find('gateway', 'GET /users/me (cookie)'),
    overload: find('gateway', 'overload 5×'),
  };
  const peer = {
    reg: find('better-auth', 'registration'),
    me: find('better-auth', 'getSession (cookie)'),
    overload: find('better-auth', 'overload 5×'),
  };
  return [
    `### ${DB_NAMES[m.database]}: ${m.date.slice(0, 16).replace('T', ' ')} UTC${m.smoke ? ' (smoke run)' : ''}`,
    '',
    `\`${m.command}\` · Node ${m.node} · ${m.cores} cores (${m.cpu}) · bcrypt cost ${m.bcryptCost} · ${m.workers} hashing threads · ${m.scenarioSeconds} s per scenario · ${r.runs.length} run${r.runs.length === 1 ? '' : 's'}: medians, with the range over the runs in brackets`,
    '',
    '| run | started (UTC) | load average before | after | raw capacity, hashes/s (before the first scenario … after the last) |',
    '| --: | --- | --- | --- | --- |',
    ...r.runs.map(
      (run, i) =>
        `| ${i + 1} | ${run.date.slice(11, 19)} | ${load(run.loadAverage.before)} | ${load(run.loadAverage.after)} | ${run.capacities.map((c) => fixed(c)).join(' · ')} |`,
    ),
    '',
    '| server | scenario | conns | 2xx/s | × capacity | p50 ms | p99 ms | statuses (all runs) | /healthz p99 ms | loop delay p99 ms | RSS peak MB |',
    '| --- | --- | --: | --: | --: | --: | --: | --- | --: | --: | --: |',
    ...r.summary.map(row),
    '',
    ...pageLines(r),
    `Gateway resident memory: ${showSpread(r.memory.startFreshMB, 0)} MB after start on a new database, ${showSpread(r.memory.startExistingMB, 0)} MB after a restart on the same one, ${showSpread(r.memory.peakMB, 0)} MB at the peak under load.`,
    '',
    'Emails with and without an account, one request at a time, alternating (medians per run):',
    '',
    '| route | requests of each | with an account, ms | without, ms | ratio | statuses (with / without) |',
    '| --- | --: | --: | --: | --: | --- |',
    ...summariseEnumeration(r.runs).map(
      (e) =>
        `| ${e.name} | ${e.samples} | ${showSpread(e.knownMs)} | ${showSpread(e.unknownMs)} | ${showSpread(e.ratio, 2)} | ${e.statuses.known} / ${e.statuses.unknown} |`,
    ),
    '',
    'Against better-auth (its default scrypt; us at bcrypt cost ' + m.bcryptCost + '):',
    '',
    '| | ours | better-auth | ours ÷ theirs |',
    '| --- | --: | --: | --: |',
    `| registrations/s, ${ours.reg?.connections} connections | ${show(ours.reg?.rps ?? null)} | ${show(peer.reg?.rps ?? null)} | ${ratio(ours.reg, peer.reg)} |`,
    `| /healthz p99 ms during those registrations | ${show(ours.reg?.healthzP99 ?? null)} | ${show(peer.reg?.healthzP99 ?? null)} | |`,
    `| session check req/s (cookie), ${ours.me?.connections} connections | ${show(ours.me?.rps ?? null, 0)} | ${show(peer.me?.rps ?? null, 0)} | ${ratio(ours.me, peer.me)} |`,
    `| session check p99 ms | ${show(ours.me?.p99 ?? null, 0)} | ${show(peer.me?.p99 ?? null, 0)} | |`,
    `| 5× overload: registrations/s | ${show(ours.overload?.rps ?? null)} | ${show(peer.overload?.rps ?? null)} | ${ratio(ours.overload, peer.overload)} |`,
    `| 5× overload: /healthz p99 ms | ${show(ours.overload?.healthzP99 ?? null)} | ${show(peer.overload?.healthzP99 ?? null)} | |`,
    `| 5× overload: event-loop delay p99 ms | ${show(ours.overload?.loopDelayP99 ?? null)} | ${show(peer.overload?.loopDelayP99 ?? null)} | |`,
    '',
    '| target | measured | met |',
    '| --- | --- | --- |',
    ...r.targets.map((t) => `| ${t.name} | ${t.measured} | ${t.pass ? 'yes' : '**no**'} |`),
    '',
  ].join('\n');
}

/** Writes <name>.json and <name>.md, each through a temporary file so a killed run leaves no half file. */
export async function writeReport(
  dir: string,
  name: string,
  report: BenchReport,
): Promise<{ json: string; md: string }> {
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
