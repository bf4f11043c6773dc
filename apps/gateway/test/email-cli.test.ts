import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { openDatabase, realms } from '@accounts/db';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = new URL('../src/cli.ts', import.meta.url).pathname;

async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, ...env }, timeout: 120_000 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

describe('npm run realm -- set <slug> require-verified-email on|off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-cli-mail-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const setting = async () => {
    const db = await openDatabase({ dataDir: dir });
    try {
      const [row] = await db.db.select({ on: realms.requireVerifiedEmail }).from(realms).where(eq(realms.slug, 'default'));
      return row!.on;
    } finally {
      await db.close();
    }
  };

  it('turns the setting on and off, and refuses an unknown realm or value clearly', { timeout: 180_000 }, async () => {
    const on = await cli(['realm', 'set', 'default', 'require-verified-email', 'on'], { DATA_DIR: dir });
    expect(on).toMatchObject({ code: 0 });
    expect(on.out).toContain('realm "default": require-verified-email on');
    expect(await setting()).toBe(true);
    expect((await cli(['realm', 'set', 'default', 'require-verified-email', 'off'], { DATA_DIR: dir })).code).toBe(0);
    expect(await setting()).toBe(false);
    const unknown = await cli(['realm', 'set', 'nope', 'require-verified-email', 'on'], { DATA_DIR: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('There is no realm "nope".');
    const bad = await cli(['realm', 'set', 'default', 'require-verified-email', 'maybe'], { DATA_DIR: dir });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('require-verified-email on|off');
  });
});
