import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Driver } from '@accounts/db';
import { createTestDatabase, seedDataDir, testDrivers, uniqueEmail, type TestDatabase } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration, STRONG2 } from './support/gateway.js';
import { spawnGateway, type GatewayProcess } from './support/process.js';
import { startSmtp, tokenOf, type TestSmtp } from './support/smtp.js';

// The outbox across processes: a mail committed by a process that is then killed is sent by the
// next one, and instances sharing a database never send a mail twice.

async function storage(driver: Driver): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (driver === 'postgres') {
    const db: TestDatabase = await createTestDatabase('postgres');
    return { env: { DATABASE_URL: db.url! }, cleanup: () => db.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'accounts-outbox-'));
  await seedDataDir(dir);
  return { env: { DATA_DIR: dir }, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * An SMTP server for the calling `describe`, and the gateway processes and storage its tests
 * start (each process with `env` under its own), all stopped and removed after them.
 */
function mailRig(env: Record<string, string> = {}) {
  let smtp: TestSmtp | undefined;
  const procs: GatewayProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop().catch(() => {});
    for (const c of cleanups) await c().catch(() => {});
    await smtp?.close();
  });
  const started = (): TestSmtp => {
    if (!smtp) throw new Error('the SMTP server starts in beforeAll');
    return smtp;
  };
  return {
    get smtp() {
      return started();
    },
    spawn: async (own: Record<string, string>) => {
      const p = await spawnGateway({ SMTP_URL: started().url, ...env, ...own });
      procs.push(p);
      return p;
    },
    storage: async (driver: Driver) => {
      const store = await storage(driver);
      cleanups.push(store.cleanup);
      return store;
    },
  };
}

describe.each(testDrivers())('the mail outbox across processes on %s', (driver) => {
  const rig = mailRig({ MAIL_RETRY_BASE_SECONDS: '1' });
  const { spawn } = rig;

  it('sends, once, a mail committed by a process killed before it could deliver it', { timeout: 120_000 }, async () => {
    const store = await rig.storage(driver);
    // This process queues but does not send (its sender is off): the kill lands between the two.
    const first = await spawn({ ...store.env, MAIL_POLL_MS: '0' });
    const email = uniqueEmail('killed');
    expect((await first.client.form('/users/register', registration(email))).status).toBe(201);
    expect((await first.client.form('/users/forgot_password', { email })).status).toBe(202);
    first.child.kill('SIGKILL');
    await first.exited;
    await first.client.close();
    expect(rig.smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(0);

    const second = await spawn({ ...store.env, MAIL_POLL_MS: '50' });
    const reset = await rig.smtp.waitFor((m) => m.to.includes(email) && /Reset your password/.test(m.subject));
    await rig.smtp.waitFor((m) => m.to.includes(email) && /Confirm your email/.test(m.subject));
    const res = await second.client.form('/users/reset_password', {
      token: tokenOf(reset),
      new_password: STRONG2,
      confirm_password: STRONG2,
    });
    expect(res.status).toBe(200);
    // Once the process has stopped nothing more can arrive: each queued mail went out once.
    expect((await second.stop()).code).toBe(0);
    const queued = rig.smtp.mails.filter((m) => m.to.includes(email) && /^(Confirm|Reset)/.test(m.subject));
    expect(queued.map((m) => m.subject).sort()).toEqual([
      expect.stringMatching(/^Confirm/),
      expect.stringMatching(/^Reset/),
    ]);
  });
});

// Instances share a database only on PostgreSQL (PGlite belongs to one process).
if (testDrivers().includes('postgres')) {
  describe('one outbox shared by two instances on postgres', () => {
    const rig = mailRig();
    const { spawn } = rig;

    it('two instances sharing one outbox send each mail exactly once', { timeout: 120_000 }, async () => {
      const store = await rig.storage('postgres');
      const env = { ...store.env, MAIL_POLL_MS: '20', HASH_WORKERS: '1' };
      const [a, b] = await Promise.all([spawn(env), spawn(env)]);
      const emails = Array.from({ length: 30 }, (_, i) => uniqueEmail(`pair${i}`));
      await Promise.all(
        emails.map(async (email, i) =>
          expect((await (i % 2 ? a : b).client.form('/users/register', registration(email))).status).toBe(201),
        ),
      );
      for (const email of emails) await rig.smtp.waitFor((m) => m.to.includes(email), 30_000);
      // Once both have stopped nothing more can arrive.
      await Promise.all([a.stop(), b.stop()]);
      for (const email of emails)
        expect(
          rig.smtp.mails.filter((m) => m.to.includes(email)),
          email,
        ).toHaveLength(1);
      expect([...a.logs, ...b.logs].some((l) => l.includes('mail sent'))).toBe(true);
    });
  });
}
