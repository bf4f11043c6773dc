import { eq, desc, and } from 'drizzle-orm';
import { mailOutbox, type Database } from '@accounts/db';
import { STRONG, uniqueEmail } from '@accounts/testing';
import type { OperatorMail } from '../src/mail/notices.js';
import { openLink } from '../src/mail/outbox.js';
import { TEST_VAULT, type Harness, type TestRequest } from './harness.js';

/** A caller with what the mail flows read from a request: the realm's own origin, a browser, an address. */
export function mailCaller(h: Harness, opts: Omit<TestRequest, 'origin'> = {}) {
  return h.caller({
    ip: '192.0.2.10',
    userAgent: 'TestBrowser/1.0',
    origin: (slug) => `http://${slug}.example.test`,
    ...opts,
  });
}

/** How an operator's command mails in these tests: the harness's cap, each realm's origin as mailCaller's. */
export const operatorMail = (h: Harness): OperatorMail => ({
  cap: h.config.mailCap,
  originOf: (realm) => `http://${realm.slug}.example.test`,
  serviceName: h.config.productName,
});

/** The mails queued for an address, newest first, as stored (a link sealed). */
export async function storedMailsTo(db: Database, recipient: string, template?: string) {
  const rows = await db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, recipient))
    .orderBy(desc(mailOutbox.id));
  return template ? rows.filter((r) => r.template === template) : rows;
}

/** The mails queued for an address, newest first, their links opened as the sender opens them. */
export async function mailsTo(db: Database, recipient: string, template?: string) {
  return (await storedMailsTo(db, recipient, template)).map((r) => ({
    ...r,
    payload: openLink(TEST_VAULT, r.recipient, r.payload),
  }));
}

/** The token in the newest mailed link of a template. */
export async function tokenFrom(db: Database, recipient: string, template: 'reset_password' | 'verify_email') {
  const [row] = await mailsTo(db, recipient, template);
  const link = (row?.payload as { link?: string } | undefined)?.link;
  if (!link) throw new Error(`no ${template} mail to ${recipient}`);
  return new URL(link).searchParams.get('token')!;
}

export async function signUp(h: Harness, realm = 'default', email = uniqueEmail('mail')) {
  const c = mailCaller(h, { realm });
  const { user } = await c.account.register({ name: 'Mail User', email, password: STRONG, password2: STRONG });
  return { user, email, token: c.issued[0]!.token, device: c.devices[0]! };
}

export { and };
