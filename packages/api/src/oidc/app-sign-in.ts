import { and, eq } from 'drizzle-orm';
import { accountEvents, users, type Database } from '@accounts/db';
import type { MailCap } from '../kernel/config.js';
import type { Context, ShownRealm } from '../kernel/context.js';
import { queueAppSignedIn } from '../mail/notices.js';
import { recordEvent } from '../records/events.js';
import { findClient } from './clients.js';

// A sign-in to an app that completed (the provider issued its code after our sign-in and consent
// pages): an account event, and on the account's first sign-in to that app a notice to its
// confirmed address. The gateway calls it where the provider finishes an interaction.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AppSignIn {
  realm: ShownRealm;
  /** The account's subject (the provider's accountId). */
  subject: string;
  clientId: string;
  clientIp: string | null;
  userAgent?: string | null;
  requestId?: string | null;
  mail: { cap: MailCap; origin: string; log?: Context['log'] };
}

/**
 * Records the sign-in to the app (`app_signed_in`, naming it); the first one of the account to
 * that app (no earlier such event) also queues the notice. Returns whether it was recorded, and
 * whether it was the first; an account or app that is gone meanwhile records nothing.
 */
export async function recordAppSignIn(db: Database, at: AppSignIn): Promise<{ recorded: boolean; first: boolean }> {
  // Not a subject (a uuid): no account, and no query a malformed one would make fail.
  if (!UUID.test(at.subject)) return { recorded: false, first: false };
  const client = await findClient(db, at.realm.id, at.clientId);
  if (!client) return { recorded: false, first: false };
  return db.transaction(async (tx) => {
    // The account's row, held until the end: two first sign-ins at once mail once.
    const [user] = await tx
      .select()
      .from(users)
      .where(and(eq(users.realmId, at.realm.id), eq(users.subject, at.subject)))
      .for('update');
    if (!user) return { recorded: false, first: false };
    const [earlier] = await tx
      .select({ id: accountEvents.id })
      .from(accountEvents)
      .where(
        and(
          eq(accountEvents.userId, user.id),
          eq(accountEvents.type, 'app_signed_in'),
          eq(accountEvents.appClientId, client.clientId),
        ),
      )
      .limit(1);
    const src = { realmId: at.realm.id, clientIp: at.clientIp, userAgent: at.userAgent, requestId: at.requestId };
    await recordEvent(tx, src, 'app_signed_in', user.id, { clientId: client.clientId, name: client.name });
    if (!earlier)
      await queueAppSignedIn(
        tx,
        { cap: at.mail.cap, realm: at.realm, origin: at.mail.origin, clientIp: at.clientIp, log: at.mail.log },
        user,
        client.name,
      );
    return { recorded: true, first: !earlier };
  });
}
