import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { openDatabase, realms } from '@accounts/db';
import { seedDataDir } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('npm run realm -- set <slug> require-verified-email on|off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-cli-mail-'));
  beforeAll(() => seedDataDir(dir));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const setting = async () => {
    const db = await openDatabase({ dataDir: dir });
    try {
      const [row] = await db.db
        .select({ on: realms.requireVerifiedEmail })
        .from(realms)
        .where(eq(realms.slug, 'default'));
      return row!.on;
    } finally {
      await db.close();
    }
  };

  it('turns the setting on and off, and refuses an unknown realm or value clearly', { timeout: 180_000 }, async () => {
    const on = await runCli(['realm', 'set', 'default', 'require-verified-email', 'on'], { DATA_DIR: dir });
    expect(on).toMatchObject({ code: 0 });
    expect(on.out).toContain('realm "default": require-verified-email on');
    expect(await setting()).toBe(true);
    expect((await runCli(['realm', 'set', 'default', 'require-verified-email', 'off'], { DATA_DIR: dir })).code).toBe(
      0,
    );
    expect(await setting()).toBe(false);
    const unknown = await runCli(['realm', 'set', 'nope', 'require-verified-email', 'on'], { DATA_DIR: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('There is no realm "nope".');
    const bad = await runCli(['realm', 'set', 'default', 'require-verified-email', 'maybe'], { DATA_DIR: dir });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('require-verified-email on|off');
  });
});
