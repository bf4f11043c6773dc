import { createHash } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import { mailOutbox, mailSends, type Database } from '@accounts/db';
import { normalizeEmail, type Locale } from '@accounts/validators';
import type { MailCap } from '../kernel/config.js';
import { ago, fromNow, secondsUntilOut } from '../kernel/db-time.js';
import type { Vault } from '../kernel/vault.js';
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

/**
 * Which cap a mail counts under. 'requested': a link a person asks for to their own address
 * (reset, verification). 'caused': mail other people's actions cause (a change-of-address link or
 * attempt onto the address, every notice). Each is counted over its own rows only, so nobody can
 * spend an address's room for the links it asks for itself, and a flood of link requests does
 * not silence the notices.
 */
export type MailKind = 'requested' | 'caused';

const REQUESTED: ReadonlySet<MailTemplate> = new Set<MailTemplate>(['reset_password', 'verify_email']);

export const mailKindOf = (template: MailTemplate): MailKind => (REQUESTED.has(template) ? 'requested' : 'caused');

/**
 * The key mails to an address are counted under: a digest of the address alone, never the address.
 * Not the realm: a mailbox is flooded alike whichever realm sends.
 */
export const recipientKey = (email: string) => createHash('sha256').update(normalizeEmail(email)).digest('hex');

/** Advisory-lock class of the per-recipient decision (the second key is taken from the digest). */
const MAIL_CAP_LOCK = 0x6d61696c; // "mail"

/** Queued, or over the recipient's cap: nothing written, and when the next mail of that kind would go. */
export type Enqueued = { queued: true } | { queued: false; retryAfter: number };

/**
 * The one home of the cap (config.ts, MailCap): takes a place for one mail of `kind` to
 * `recipient` in the caller's transaction, or says when there is room again. One `mail_sends` row
 * per place, in the database (so every instance counts alike and deleting an account resets
 * nothing). Decisions for one address are serialized by a transaction-scoped advisory lock, so
 * concurrent requests, on any instance, cannot both take the last place. A reset request for an
 * address no account has takes its place too: it is held back exactly like a known one.
 */
export async function takeMailPlace(tx: Database, cap: MailCap, recipient: string, kind: MailKind): Promise<Enqueued> {
  const key = recipientKey(recipient);
  const limit = kind === 'requested' ? cap.requested : cap.caused;
  if (limit > 0) {
    await tx.execute(sql`select pg_advisory_xact_lock(${MAIL_CAP_LOCK}, ${Number.parseInt(key.slice(0, 8), 16) | 0})`);
    // Over the cap when the limit-th newest of its kind in the window is still in it; it leaving is when there is room again.
    const [nth] = await tx
      .select({ retryAfter: secondsUntilOut(mailSends.createdAt, cap.windowMs) })
      .from(mailSends)
      .where(and(eq(mailSends.recipientKey, key), eq(mailSends.kind, kind), gt(mailSends.createdAt, ago(cap.windowMs))))
      .orderBy(desc(mailSends.createdAt))
      .offset(limit - 1)
      .limit(1);
    if (nth) return { queued: false, retryAfter: Math.max(1, nth.retryAfter) };
  }
  await tx.insert(mailSends).values({ recipientKey: key, kind });
  return { queued: true };
}

/**
 * Queues one mail unless its recipient is over the cap of its kind, in the transaction of the
 * event that causes it. The payload is built only once the mail will go: a link's token is issued
 * then, and a refused request leaves older links working.
 */
export async function enqueueMail<T extends MailTemplate>(
  tx: Database,
  cap: MailCap,
  mail: Omit<QueuedMail<T>, 'payload'> & {
    payload: () => MailPayload[T] | Promise<MailPayload[T]>;
    /** Seals the payload's link (sealLink); every mail with a working link has one. */
    vault?: Vault;
  },
): Promise<Enqueued> {
  const place = await takeMailPlace(tx, cap, mail.recipient, mailKindOf(mail.template));
  if (!place.queued) return place;
  const payload = await mail.payload();
  const { vault, ...row } = mail;
  await tx.insert(mailOutbox).values({ ...row, payload: vault ? sealLink(vault, mail.recipient, payload) : payload });
  return place;
}

/**
 * A payload as the outbox keeps it: a working link (reset, verification, change of address) is
 * sealed under SECRET_KEY, bound to the recipient, so neither the table nor a backup of it holds
 * a usable link; the sender opens it just before delivery, and the payload is cleared once sent.
 */
export function sealLink<P extends object>(vault: Vault, recipient: string, payload: P): object {
  if (!('link' in payload) || typeof payload.link !== 'string') return payload;
  const { link, ...rest } = payload;
  return { ...rest, sealedLink: vault.seal(link, `mail-link\n${recipient}`) };
}

/** The payload the templates read: its sealed link opened (throws when no kept key opens it). */
export function openLink(vault: Vault, recipient: string, payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || !('sealedLink' in payload) || typeof payload.sealedLink !== 'string')
    return payload;
  const { sealedLink, ...rest } = payload;
  return { ...rest, link: vault.open(sealedLink, `mail-link\n${recipient}`) };
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
export const backoffMs = (attempts: number, policy: OutboxPolicy) =>
  Math.min(MAX_BACKOFF_MS, policy.retryBaseMs * 2 ** Math.max(0, attempts - 1));

/**
 * Claims up to `limit` due mails for this sender: locked with SKIP LOCKED (so concurrent senders
 * take different rows), counted as an attempt, and leased (their next attempt moved past the
 * lease), in one statement (a poll that finds nothing costs one round trip). A sender that dies
 * while sending leaves the rows to be retried when the lease ends.
 */
export async function claimDueMails(db: Database, limit: number, policy: OutboxPolicy): Promise<OutboxRow[]> {
  const due = db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(and(isNull(mailOutbox.sentAt), isNull(mailOutbox.failedAt), lte(mailOutbox.nextAttemptAt, sql`now()`)))
    .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(mailOutbox)
    .set({ attempts: sql`${mailOutbox.attempts} + 1`, nextAttemptAt: fromNow(policy.leaseMs) })
    .where(inArray(mailOutbox.id, due))
    .returning();
}

/** Delivered: the payload (links, addresses) is cleared, only the record that it was sent remains. */
export async function markSent(db: Database, id: number): Promise<void> {
  await db
    .update(mailOutbox)
    .set({ sentAt: sql`now()`, payload: {}, lastError: null })
    .where(eq(mailOutbox.id, id));
}

/** A failed try: retried after the back-off, or given up after the last attempt. Returns whether it was given up. */
export async function markFailed(db: Database, row: OutboxRow, error: string, policy: OutboxPolicy): Promise<boolean> {
  const giveUp = row.attempts >= policy.maxAttempts;
  await db
    .update(mailOutbox)
    .set(
      giveUp
        ? { failedAt: sql`now()`, lastError: error.slice(0, 500), payload: {} }
        : { lastError: error.slice(0, 500), nextAttemptAt: fromNow(backoffMs(row.attempts, policy)) },
    )
    .where(eq(mailOutbox.id, row.id));
  return giveUp;
}

/**
 * The mails not yet sent nor given up, and how long the oldest has waited (seconds, by the
 * database's clock; 0 when none): what an operator watches to see that mail goes out.
 */
export async function outboxBacklog(db: Database): Promise<{ pending: number; oldestSeconds: number }> {
  const [row] = await db
    .select({
      pending: sql<number>`count(*)`.mapWith(Number),
      oldestSeconds: sql<number>`coalesce(extract(epoch from now() - min(${mailOutbox.createdAt})), 0)`.mapWith(Number),
    })
    .from(mailOutbox)
    .where(and(isNull(mailOutbox.sentAt), isNull(mailOutbox.failedAt)));
  return row ?? { pending: 0, oldestSeconds: 0 };
}
