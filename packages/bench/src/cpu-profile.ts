// Where a server's CPU went: reads a V8 CPU profile (`node --cpu-prof`) and sums the self time
// of its samples by the code they were in, as shares of the busy time (idle left out) and, given
// the number of requests served meanwhile, as microseconds per request.
//   tsx src/cpu-profile.ts <file.cpuprofile> [requests]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const GROUPS: [RegExp, string][] = [
  [/^\(idle\)$/, 'idle'],
  [/bcryptjs/, 'bcrypt (bcryptjs)'],
  [/zxcvbn|password-estimator/, 'password estimate (zxcvbn-ts)'],
  [/^\(garbage collector\)$/, 'garbage collection'],
  [/^(writev|writeBuffer|writeUtf8String|read|close|shutdown)$/, 'system calls (socket reads and writes)'],
  [/@trpc\//, 'tRPC (caller, middleware chain, context merging)'],
  [/drizzle-orm/, 'drizzle (query building, result mapping)'],
  [/\/postgres\//, 'postgres.js (wire protocol)'],
  [/@electric-sql\/pglite|^wasm:/, 'PGlite (WebAssembly PostgreSQL and its JS)'],
  [/\/helmet\/|@fastify\/helmet/, 'helmet (security headers)'],
  [/fastify|find-my-way|light-my-request|avvio|fast-json-stringify|@fastify\//, 'fastify and its plugins'],
  [/pino|@pinojs/, 'pino (logger)'],
  [/zod/, 'zod'],
  [/^node:/, 'Node.js (http, net, streams, crypto in JS)'],
  [/apps\/gateway|packages\/(api|db|validators)/, 'the service code (gateway, api, db)'],
];

function groupOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  for (const [re, name] of GROUPS) if (re.test(url) || (!url && re.test(functionName))) return name;
  return url ? 'other JavaScript' : 'other native (V8, libuv)';
}

/** A profile as written by `node --cpu-prof`; `main` when it is the main thread's (thread 0 in its name). */
export function readProfile(file: string): Profile & { main: boolean } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  return { ...profile, main: /\.\d+\.0\.\d+\.cpuprofile$/.test(file) };
}

const byTime = (a: [string, number], b: [string, number]) => b[1] - a[1];

/**
 * Busy time by group and by function of the service's own code, in microseconds, and the idle
 * time, of the samples taken between `from` and `to` (the system's monotonic clock, in µs, as
 * the profile's own timestamps); all of them by default.
 */
export function summariseSamples(profile: Profile, from = -Infinity, to = Infinity) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const micros = new Map<string, number>();
  const functions = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    const node = byId.get(id)!;
    const group = groupOf(node);
    micros.set(group, (micros.get(group) ?? 0) + delta);
    if (group.startsWith('the service code')) {
      const fn = `${node.callFrame.functionName || '(anonymous)'} (${node.callFrame.url.split('/').pop()})`;
      functions.set(fn, (functions.get(fn) ?? 0) + delta);
    }
  });
  const idle = micros.get('idle') ?? 0;
  micros.delete('idle');
  const busy = [...micros.values()].reduce((a, b) => a + b, 0);
  return { busy, idle, groups: [...micros].sort(byTime), functions: [...functions].sort(byTime) };
}

/** Busy time by group, in microseconds, and the idle time. */
export function summariseProfile(file: string): { busy: number; idle: number; groups: [string, number][] } {
  return summariseSamples(readProfile(file));
}

export function formatProfile(file: string, requests = 0): string {
  const { busy, idle, groups } = summariseProfile(file);
  return [
    `busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms${requests ? `, ${requests} requests: ${(busy / requests).toFixed(0)} µs of CPU per request` : ''}`,
    ...groups.map(
      ([group, us]) =>
        `${((100 * us) / busy).toFixed(1).padStart(5)}%${requests ? ` ${(us / requests).toFixed(1).padStart(6)} µs` : ''}  ${group}`,
    ),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, requests] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx src/cpu-profile.ts <file.cpuprofile> [requests]');
    process.exit(2);
  }
  console.log(formatProfile(file, Number(requests) || 0));
}
