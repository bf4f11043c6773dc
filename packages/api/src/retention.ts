import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '@accounts/db';
import type { AccountConfig } from './config.js';

export interface RetentionOptions {
  /** Account events older than this are deleted (never less than the lockout windows). */
  eventRetentionMs: number;
  /** Rows deleted per statement: each batch is its own short transaction. */
  batchSize?: number;
}

export interface Purged {
  sessions: number;
  events: number;
  knownDevices: number;
  /** Mailed-link tokens a day past their expiry or their use. */
  tokens: number;
  /** Outbox rows sent or given up longer ago than the event retention (their payload is already gone). */
  mails: number;
  /** Records of queued mail older than the mail cap's window, which no longer counts them. */
  mailSends: number;
}

/**
 * Known devices kept per account, the most recently used first. A program that never sends its
 * credential back gets a new one at every sign-in; this bounds what that leaves behind.
 */
export const KNOWN_DEVICES_PER_ACCOUNT = 20;

const secs = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Deletes expired or idle sessions, account events past their retention and known devices unused
 * for their lifetime, in batches by primary key. A batch locks only its own rows and skips rows
 * another transaction holds (SKIP LOCKED), so a request is never kept waiting behind the purge,
 * and between batches the requests get the database first. Several instances may purge at once.
 */
export async function purgeExpired(db: Database, config: AccountConfig, opts: RetentionOptions): Promise<Purged> {
  const batch = opts.batchSize ?? 500;
  // Failures inside a lockout window are still counted: never delete those.
  const eventSeconds = secs(Math.max(opts.eventRetentionMs, config.failureWindowMs, config.accountCapWindowMs));
  const older = (column: string, seconds: number) => sql.raw(`${column} < now() - interval '${seconds} seconds'`);
  const drain = async (table: string, where: SQL) => {
    let total = 0;
    for (;;) {
      const rows = await db.execute<{ id: unknown }>(
        sql`delete from ${sql.identifier(table)} where id in (select id from ${sql.identifier(table)} where ${where} limit ${sql.raw(String(batch))} for update skip locked) returning id`,
      );
      const n = Array.isArray(rows) ? rows.length : ((rows as { rows?: unknown[] }).rows?.length ?? 0);
      total += n;
      if (n < batch) return total;
      await yieldToRequests();
    }
  };
  return {
    sessions: await drain('sessions', sql`expires_at < now() or ${older('last_seen_at', secs(config.sessionIdleMs))}`),
    events: await drain('account_events', older('created_at', eventSeconds)),
    knownDevices:
      (await drain('known_devices', older('last_used_at', secs(config.knownDeviceTtlMs)))) +
      (await drain(
        'known_devices',
        sql`id in (select id from (select id, row_number() over (partition by user_id order by last_used_at desc, id) as n from known_devices) ranked where n > ${sql.raw(String(KNOWN_DEVICES_PER_ACCOUNT))})`,
      )),
    tokens: await drain('account_tokens', sql`${older('expires_at', 86_400)} or ${older('used_at', 86_400)}`),
    mails: await drain('mail_outbox', sql`${older('sent_at', eventSeconds)} or ${older('failed_at', eventSeconds)}`),
    mailSends: await drain('mail_sends', older('created_at', secs(config.mailCap.windowMs))),
  };
}
