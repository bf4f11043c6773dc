import { eq, desc, and } from 'drizzle-orm';
import { mailOutbox, type Database } from '@accounts/db';
import { STRONG, uniqueEmail } from '@accounts/testing';
import type { Locale } from '@accounts/validators';
import { findRealm } from '../src/realms.js';
import { callerFor, createAppRouter } from '../src/router.js';
import type { IssuedSession } from '../src/sessions.js';
import type { RateLimitedAction } from '../src/trpc.js';
import type { Harness } from './harness.js';

/** A caller of every router with what the mail flows read from a request (origin, locale, limits). */
export function mailCaller(
  h: Harness,
  opts: {
    realm?: string;
    token?: string | null;
    device?: string;
    ip?: string;
    locale?: Locale;
    userAgent?: string;
    limit?: (a: RateLimitedAction, key?: string) => number | null;
    /** Receives what the procedures log (warn lines). */
    log?: string[];
  } = {},
) {
  const createCaller = callerFor(createAppRouter(h.config));
  const issued: IssuedSession[] = [];
  const devices: string[] = [];
  const record = { issued, devices, cleared: 0 };
  const caller = createCaller(async () => {
    const realm = (await findRealm(h.db.db, opts.realm ?? 'default'))!;
    return {
      db: h.db.db,
      hasher: h.hasher,
      realm,
      locale: opts.locale ?? 'en',
      clientIp: opts.ip ?? '192.0.2.10',
      userAgent: opts.userAgent ?? 'TestBrowser/1.0',
      origin: `http://${realm.slug}.example.test`,
      sessionToken: opts.token ?? null,
      deviceCredential: opts.device ?? null,
      session: { issue: (s) => void issued.push(s), clear: () => void record.cleared++, rememberDevice: (d) => void devices.push(d) },
      rateLimit: async (a: RateLimitedAction, key?: string) => opts.limit?.(a, key) ?? null,
      log: { warn: (fields: Record<string, unknown>, message: string) => void opts.log?.push(JSON.stringify({ ...fields, msg: message })) },
    };
  });
  return Object.assign(record, { account: caller.account, email: caller.email });
}

/** The mails queued for an address, newest first. */
export async function mailsTo(db: Database, recipient: string, template?: string) {
  const rows = await db.select().from(mailOutbox).where(eq(mailOutbox.recipient, recipient)).orderBy(desc(mailOutbox.id));
  return template ? rows.filter((r) => r.template === template) : rows;
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
