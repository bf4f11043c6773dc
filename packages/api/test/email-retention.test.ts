import { eq, sql } from 'drizzle-orm';
import { accountTokens, mailOutbox } from '@accounts/db';
import { testDrivers } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { claimDueMails, markSent } from '../src/mail/outbox.js';
import { purgeExpired } from '../src/operator/retention.js';
import { mailCaller, mailsTo, signUp } from './email-harness.js';
import { useHarness } from './harness.js';

describe.each(testDrivers())('retention of mail tokens and sent mail on %s', (driver) => {
  const h = useHarness(driver);

  it('purges tokens a day past expiry or use, and sent mail past the event retention; keeps the rest', async () => {
    const { email, user } = await signUp(h);
    await mailCaller(h).email.forgotPassword({ email });
    const policy = { maxAttempts: 3, retryBaseMs: 1000, leaseMs: 60_000 };
    for (const row of await claimDueMails(h.db.db, 100, policy)) await markSent(h.db.db, row.id);
    const [verify] = await mailsTo(h.db.db, email, 'verify_email');
    expect(verify!.sentAt).not.toBeNull();
    expect(verify!.payload).toEqual({});
    // The reset token expired two days ago; the verification token is live; one sent mail is old.
    await h.db.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '2 days'` })
      .where(eq(accountTokens.purpose, 'reset_password'));
    await h.db.db
      .update(mailOutbox)
      .set({ sentAt: sql`now() - interval '100 days'` })
      .where(eq(mailOutbox.id, verify!.id));
    const purged = await purgeExpired(h.db.db, h.config, { eventRetentionMs: 90 * 86_400_000 });
    expect(purged.tokens).toBeGreaterThanOrEqual(1);
    expect(purged.mails).toBeGreaterThanOrEqual(1);
    const left = await h.db.db.select().from(accountTokens).where(eq(accountTokens.userId, user.id));
    expect(left.map((t) => t.purpose)).toEqual(['verify_email']);
    expect((await mailsTo(h.db.db, email)).map((m) => m.template)).toEqual(['reset_password']);
  });
});
