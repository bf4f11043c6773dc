import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { lt, not, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import {
  accountTokens,
  auditSettings,
  knownDevices,
  mailOutbox,
  mailSends,
  oidcArtifacts,
  oidcSigningKeys,
  upstreamFlows,
  pendingSignIns,
  webauthnChallenges,
  type Database,
} from '@accounts/db';
import type { AccountConfig } from '../kernel/config.js';
import { ago } from '../kernel/db-time.js';
import { RETIRED_KEY_KEPT_MS } from '../kernel/oidc-lifetimes.js';
import { KNOWN_DEVICES_PER_ACCOUNT } from '../credentials/known-devices.js';
import { sessionIsLive } from '../records/sessions.js';

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
  /** Sign-ins that waited for a second step past their expiry. */
  pendingSignIns: number;
  /** Passkey ceremonies begun and never finished, past their expiry. */
  challenges: number;
  /** What the OpenID Connect provider kept (codes, tokens, grants, its sessions) past its expiry. */
  oidcArtifacts: number;
  /** Sign-ins at upstream providers never finished, and identities that waited for a link, past their ten minutes. */
  upstreamFlows: number;
  /** Retired signing keys no live ID token was signed with. */
  oidcKeys: number;
}

const DAY_MS = 86_400_000;

/**
 * Writes the events' retention where the database's purge function reads it (migration 0010): only
 * the schema's owner may, so it runs with the migrating role at start-up. The purge never deletes a
 * younger event, whatever cutoff the serving role passes.
 */
export async function setEventRetention(db: Database, days: number): Promise<void> {
  await db.update(auditSettings).set({ eventRetentionDays: Math.max(1, Math.ceil(days)) });
}

/**
 * Account events past their retention, through the database's own purge function (migration
 * 0009): the events table is append-only for everything else, the serving role included.
 */
async function purgeEvents(db: Database, olderThanMs: number, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.execute<{ n: number }>(sql`select accounts_purge_events(${ago(olderThanMs)}, ${batch}) as n`);
    const list = (Array.isArray(rows) ? rows : ((rows as { rows?: unknown[] }).rows ?? [])) as { n: number }[];
    const n = Number(list[0]?.n ?? 0);
    total += n;
    if (n < batch) return total;
    await yieldToRequests();
  }
}

/**
 * Deletes expired or idle sessions, account events past their retention and known devices unused
 * for their lifetime, in batches by primary key. A batch locks only its own rows and skips rows
 * another transaction holds (SKIP LOCKED), so a request is never kept waiting behind the purge,
 * and between batches the requests get the database first. Several instances may purge at once.
 */
export async function purgeExpired(db: Database, config: AccountConfig, opts: RetentionOptions): Promise<Purged> {
  const batch = opts.batchSize ?? 500;
  // Failures inside a lockout window are still counted: never delete those.
  const eventMs = Math.max(opts.eventRetentionMs, config.failureWindowMs, config.accountCapWindowMs);
  const older = (column: AnyColumn, ms: number) => lt(column, ago(ms));
  /** Deletes the rows `where` names, `key` (the primary key's columns) a batch at a time. */
  const drain = async (table: string, where: SQL | undefined, key = 'id') => {
    let total = 0;
    for (;;) {
      const rows = await db.execute<{ id: unknown }>(
        sql`delete from ${sql.identifier(table)} where (${sql.raw(key)}) in (select ${sql.raw(key)} from ${sql.identifier(table)} where ${where} limit ${sql.raw(String(batch))} for update skip locked) returning 1`,
      );
      const n = Array.isArray(rows) ? rows.length : ((rows as { rows?: unknown[] }).rows?.length ?? 0);
      total += n;
      if (n < batch) return total;
      await yieldToRequests();
    }
  };
  return {
    // Exactly the sessions the session check no longer accepts.
    sessions: await drain('sessions', not(sessionIsLive(config.sessionIdleMs))),
    events: await purgeEvents(db, eventMs, batch),
    knownDevices:
      (await drain('known_devices', older(knownDevices.lastUsedAt, config.knownDeviceTtlMs))) +
      (await drain(
        'known_devices',
        sql`id in (select id from (select id, row_number() over (partition by user_id order by last_used_at desc, id) as n from known_devices) ranked where n > ${sql.raw(String(KNOWN_DEVICES_PER_ACCOUNT))})`,
      )),
    tokens: await drain(
      'account_tokens',
      or(older(accountTokens.expiresAt, DAY_MS), older(accountTokens.usedAt, DAY_MS)),
    ),
    mails: await drain('mail_outbox', or(older(mailOutbox.sentAt, eventMs), older(mailOutbox.failedAt, eventMs))),
    mailSends: await drain('mail_sends', older(mailSends.createdAt, config.mailCap.windowMs)),
    pendingSignIns: await drain('pending_sign_ins', older(pendingSignIns.expiresAt, 0)),
    challenges: await drain('webauthn_challenges', older(webauthnChallenges.expiresAt, 0)),
    oidcArtifacts: await drain('oidc_artifacts', older(oidcArtifacts.expiresAt, 0), 'realm_id, kind, id'),
    upstreamFlows: await drain('upstream_flows', older(upstreamFlows.expiresAt, 0)),
    oidcKeys: await drain('oidc_signing_keys', older(oidcSigningKeys.retiredAt, RETIRED_KEY_KEPT_MS), 'realm_id, kid'),
  };
}
