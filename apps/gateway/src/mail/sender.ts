import {
  claimDueMails,
  markFailed,
  markSent,
  openLink,
  renderMail,
  type Database,
  type Vault,
  type MailTemplate,
  type OutboxPolicy,
  type OutboxRow,
} from '@accounts/api';
import type { Locale } from '@accounts/validators';
import type { FastifyInstance } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import { startOutboxLoop } from '../outbox-loop.js';

/** Mails claimed per round; a full round is followed at once by the next. */
const BATCH = 20;
/** A claimed mail is hidden from other senders this long; SMTP timeouts below keep a send well within it. */
const LEASE_MS = 5 * 60_000;

export const outboxPolicy = (config: Config): OutboxPolicy => ({
  maxAttempts: config.MAIL_MAX_ATTEMPTS,
  retryBaseMs: config.MAIL_RETRY_BASE_SECONDS * 1000,
  leaseMs: LEASE_MS,
});

type Deliver = (row: OutboxRow) => Promise<void>;

/**
 * SMTP through nodemailer when SMTP_URL is set (and MAIL_TRANSPORT is not log); otherwise one log
 * line per mail with its link whole, so that a developer can follow it (`npm start` on their own
 * machine). Production never gets here by accident: it refuses to start without SMTP_URL unless
 * MAIL_TRANSPORT=log says so on purpose (config.ts).
 */
function deliveryFor(
  app: FastifyInstance,
  config: Config,
  vault: Vault,
): { deliver: Deliver; close(): void; kind: 'smtp' | 'log' } {
  // The link is opened only here, just before delivery (the outbox keeps it sealed).
  const render = (row: OutboxRow) =>
    renderMail(
      row.template as MailTemplate,
      row.locale as Locale,
      openLink(vault, row.recipient, row.payload) as never,
    );
  if (!config.SMTP_URL || config.MAIL_TRANSPORT === 'log') {
    return {
      kind: 'log',
      deliver: (row) => {
        const mail = render(row);
        app.log.info(
          {
            mail: { id: row.id, to: row.recipient, template: row.template, subject: mail.subject, link: mail.link },
          },
          'mail (SMTP_URL not set: logged, not sent)',
        );
        return Promise.resolve();
      },
      close() {},
    };
  }
  const transport: Transporter = nodemailer.createTransport(config.SMTP_URL, {
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  } as never);
  return {
    kind: 'smtp',
    deliver: async (row) => {
      const mail = render(row);
      await transport.sendMail({
        from: config.MAIL_FROM,
        to: row.recipient,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': row.locale },
      });
    },
    close: () => transport.close(),
  };
}

/**
 * The background sender: every MAIL_POLL_MS it claims due mails from the outbox (FOR UPDATE
 * SKIP LOCKED, so instances sharing a database never take the same one) and delivers them.
 * A failure is logged and retried with exponential back-off; after MAIL_MAX_ATTEMPTS the mail
 * is given up (logged at error). Runs from ready to close, never inside a request; a stop waits
 * for the round in flight. MAIL_POLL_MS=0 turns it off (another instance sends).
 */
export function startMailSender(
  app: FastifyInstance & { draining: boolean },
  db: Database,
  config: Config,
  vault: Vault,
  metrics?: Metrics,
) {
  if (config.MAIL_POLL_MS === 0) return;
  const policy = outboxPolicy(config);
  const delivery = deliveryFor(app, config, vault);

  const round = async (): Promise<number> => {
    const rows = await claimDueMails(db, BATCH, policy);
    for (const row of rows) {
      try {
        await delivery.deliver(row);
        await markSent(db, row.id);
        metrics?.mailSent();
        if (delivery.kind === 'smtp')
          app.log.info({ mail: { id: row.id, template: row.template, attempt: row.attempts } }, 'mail sent');
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const gaveUp = await markFailed(db, row, error, policy);
        metrics?.mailFailed(gaveUp);
        if (gaveUp)
          app.log.error(
            { mail: { id: row.id, template: row.template, attempts: row.attempts }, err: error },
            'mail given up after the last attempt',
          );
        else
          app.log.warn(
            { mail: { id: row.id, template: row.template, attempt: row.attempts }, err: error },
            'mail delivery failed; will retry',
          );
      }
    }
    return rows.length;
  };

  app.addHook('onReady', (done) => {
    app.log.info(
      { delivery: delivery.kind, pollMs: config.MAIL_POLL_MS },
      delivery.kind === 'smtp'
        ? 'mail sender started (SMTP)'
        : 'mail sender started: SMTP_URL not set, mails are written to this log with their links whole (a developer machine; set SMTP_URL to send them)',
    );
    done();
  });
  startOutboxLoop(app, {
    round: async () => (await round()) === BATCH,
    pollMs: config.MAIL_POLL_MS,
    unreachable: 'mail outbox unreachable; will retry',
    close: () => delivery.close(),
  });
}
