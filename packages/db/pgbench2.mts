import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { setFlagsFromString } from 'node:v8';
import { readFileSync } from 'node:fs';
import { PGLITE_START_PARAMS } from './src/pglite-setup.ts';
setFlagsFromString('--liftoff-only');
let t = performance.now(); let c = process.cpuUsage();
const lap = (l: string) => { const cu = process.cpuUsage(c); console.log(l, 'wall', (performance.now() - t).toFixed(0), 'cpu', ((cu.user + cu.system) / 1000).toFixed(0)); t = performance.now(); c = process.cpuUsage(); };
const mod = await WebAssembly.compile(readFileSync(new URL('../../node_modules/.pnpm/@electric-sql+pglite@0.5.16/node_modules/@electric-sql/pglite/dist/pglite.wasm', import.meta.url))); lap('compile');
const a = new PGlite(undefined, { startParams: PGLITE_START_PARAMS, pgliteWasmModule: mod, initdbWasmModule: undefined }); await a.waitReady; lap('initdb open');
await migrate(drizzle({ client: a }), { migrationsFolder: './migrations' }); lap('migrate');
console.log((await a.query("select count(*) from pg_tables where schemaname='public'")).rows);
await a.query('checkpoint');
const dump = await a.dumpDataDir('none'); lap('dump ' + dump.size);
await a.close();
for (let i = 0; i < 3; i++) {
  const b = new PGlite({ dataDir: 'memory://', startParams: PGLITE_START_PARAMS, loadDataDir: dump, pgliteWasmModule: mod }); await b.waitReady; lap('load');
  const r = await b.query("select count(*) from pg_tables where schemaname='public'"); await b.close(); lap('query+close ' + JSON.stringify(r.rows));
}
