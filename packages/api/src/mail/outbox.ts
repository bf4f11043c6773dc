import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import { mailOutbox, type Database } from '@accounts/db';
import type { Locale } from '@accounts/validators';
import { millis } from '../sessions.js';
import type { MailPayload, MailTemplate } from './templates.js';

// The transactional outbox. A mail is written in the same transaction as the event that causes
// it (so it exists exactly when the event does), and a background sender delivers it later:
// claims due rows with FOR UPDATE SKIP LOCKED, leases them while sending, records the outcome.

export interface QueuedMail<T extends MailTemplate = MailTemplate> {
  realmId: string;
  userId: string | null;
  recipient: string;
  template: T;
  locale: Locale;
  payload: MailPayload[T];
}

/** Queues one mail; pass the transaction of the event that causes it. */
export async function enqueueMail<T extends MailTemplate>(tx: Database, mail: QueuedMail<T>): Promise<void> {
  await tx.insert(mailOutbox).values({ ...mail, payload: mail.payload as unknown as Record<string, unknown> });
}

export type OutboxRow = typeof mailOutbox.$inferSelect;

export interface OutboxPolicy {
  /** Deliveries tried before a mail is given up (failed_at set). */
  maxAttempts: number;
  /** The first retry waits this long; each further one twice as long (capped at an hour). */
  retryBaseMs: number;
  /** How long a claimed mail is hidden from other senders while this one sends it. */
  leaseMs: number;
}

const MAX_BACKOFF_MS = 3600_000;

/** The wait before the next try after `attempts` failed ones. */
export const backoffMs = (attempts: number, policy: OutboxPolicy) => Math.min(MAX_BACKOFF_MS, policy.retryBaseMs * 2 ** Math.max(0, attempts - 1));

/**
 * Claims up to `limit` due mails for this sender: locked with SKIP LOCKED (so concurrent senders
 * take different rows), counted as an attempt, and leased (their next attempt moved past the
 * lease), all in one transaction. A sender that dies while sending leaves the rows to be
 * retried when the lease ends.
 */
export async function claimDueMails(db: Database, limit: number, policy: OutboxPolicy): Promise<OutboxRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      .where(and(isNull(mailOutbox.sentAt), isNull(mailOutbox.failedAt), lte(mailOutbox.nextAttemptAt, sql`now()`)))
      .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(mailOutbox)
      .set({ attempts: sql`${mailOutbox.attempts} + 1`, nextAttemptAt: sql`now() + ${millis(policy.leaseMs)}` })
      .where(sql`${mailOutbox.id} in (${sql.join(due.map((d) => sql`${d.id}`), sql`, `)})`)
      .returning();
  });
}

/** Delivered: the payload (links, addresses) is cleared, only the record that it was sent remains. */
export async function markSent(db: Database, id: number): Promise<void> {
  await db.update(mailOutbox).set({ sentAt: sql`now()`, payload: {}, lastError: null }).where(eq(mailOutbox.id, id));
}

/** A failed try: retried after the back-off, or given up after the last attempt. Returns whether it was given up. */
export async function markFailed(db: Database, row: OutboxRow, error: string, policy: OutboxPolicy): Promise<boolean> {
  const giveUp = row.attempts >= policy.maxAttempts;
  await db
    .update(mailOutbox)
    .set(
      giveUp
        ? { failedAt: sql`now()`, lastError: error.slice(0, 500), payload: {} }
        : { lastError: error.slice(0, 500), nextAttemptAt: sql`now() + ${millis(backoffMs(row.attempts, policy))}` },
    )
    .where(eq(mailOutbox.id, row.id));
  return giveUp;
}
