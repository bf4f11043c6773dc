import { and, asc, eq, ne, sql } from 'drizzle-orm';
import {
  accountEvents,
  accountTokens,
  knownDevices,
  mailOutbox,
  passkeys,
  recoveryCodes,
  sessions,
  totpCredentials,
  users,
  type Database,
  type Session,
  type User,
} from '@accounts/db';
import { passkeyKind } from '../credentials/passkey-kinds.js';
import type { ShownRealm } from '../kernel/context.js';
import { UNLISTED_MAIL, type AccountExport } from './export-outputs.js';

// Everything the service holds about one account, read in one transaction (a consistent
// snapshot), each table by the account's id only: another account's rows are never read.

export async function exportAccount(
  db: Database,
  realm: ShownRealm,
  user: User,
  current: Session,
): Promise<AccountExport> {
  return db.transaction(async (tx) => {
    const [fresh] = await tx.select().from(users).where(eq(users.id, user.id));
    const account = fresh ?? user;
    const [change] = await tx
      .select({ newEmail: accountTokens.newEmail, expiresAt: accountTokens.expiresAt })
      .from(accountTokens)
      .where(
        and(
          eq(accountTokens.userId, user.id),
          eq(accountTokens.purpose, 'change_email'),
          sql`${accountTokens.usedAt} is null and ${accountTokens.expiresAt} > now()`,
        ),
      )
      .orderBy(sql`${accountTokens.createdAt} desc`)
      .limit(1);
    const sessionRows = await tx
      .select()
      .from(sessions)
      .where(eq(sessions.userId, user.id))
      .orderBy(asc(sessions.createdAt));
    const devices = await tx
      .select()
      .from(knownDevices)
      .where(eq(knownDevices.userId, user.id))
      .orderBy(asc(knownDevices.createdAt));
    const events = await tx
      .select()
      .from(accountEvents)
      .where(and(eq(accountEvents.userId, user.id), eq(accountEvents.pending, false)))
      .orderBy(asc(accountEvents.id));
    const mails = await tx
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.userId, user.id), ne(mailOutbox.template, UNLISTED_MAIL)))
      .orderBy(asc(mailOutbox.id));
    const [app] = await tx.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    const keys = await tx.select().from(passkeys).where(eq(passkeys.userId, user.id)).orderBy(asc(passkeys.createdAt));
    const codes = await tx.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    return {
      format: 'accounts-export/1' as const,
      exportedAt: new Date(),
      realm: { slug: realm.slug, name: realm.name },
      account: {
        id: account.id,
        name: account.name,
        email: account.email,
        emailVerifiedAt: account.emailVerifiedAt,
        createdAt: account.createdAt,
        passwordChangedAt: account.passwordChangedAt,
        locale: account.locale,
        twoStep: account.twoStep,
        secondFactorSuggestionDismissedAt: account.secondFactorSuggestionDismissedAt,
      },
      pendingEmailChange: change?.newEmail ? { newEmail: change.newEmail, expiresAt: change.expiresAt } : null,
      sessions: sessionRows.map((s) => ({
        id: s.id,
        current: s.id === current.id,
        userAgent: s.userAgent,
        address: s.clientIp,
        createdAt: s.createdAt,
        lastUsedAt: s.lastSeenAt,
        expiresAt: s.expiresAt,
      })),
      knownDevices: devices.map((d) => ({ createdAt: d.createdAt, lastUsedAt: d.lastUsedAt })),
      events: events.map((e) => ({
        id: e.publicId,
        type: e.type,
        at: e.createdAt,
        address: e.clientIp,
        userAgent: e.userAgent,
        app: e.appClientId ? { clientId: e.appClientId, name: e.appName ?? '' } : null,
      })),
      mails: mails.map((m) => ({
        kind: m.template as AccountExport['mails'][number]['kind'],
        to: m.recipient,
        queuedAt: m.createdAt,
        status: m.sentAt ? ('sent' as const) : m.failedAt ? ('failed' as const) : ('pending' as const),
        sentAt: m.sentAt,
      })),
      secondFactors: {
        authenticatorApp: app?.secret ? { createdAt: app.createdAt, enabledAt: app.enabledAt } : null,
        passkeys: keys.map((p) => ({
          name: p.name,
          kind: passkeyKind(p.aaguid),
          synced: p.deviceType === 'multiDevice' && p.backedUp,
          createdAt: p.createdAt,
          lastUsedAt: p.lastUsedAt,
        })),
        recoveryCodes: {
          left: codes.filter((c) => !c.usedAt).length,
          used: codes.filter((c) => c.usedAt).length,
          issuedAt: codes[0]?.createdAt ?? null,
        },
      },
    };
  });
}
