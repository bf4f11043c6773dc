import { and, eq } from 'drizzle-orm';
import { accountEvents, type Database, type User } from '@accounts/db';
import { normalizeEmail } from '@accounts/validators';
import { keptUserAgent } from '../kernel/device.js';
import type { Vault } from '../kernel/vault.js';

export type AccountEventType =
  | 'registered'
  | 'signed_in'
  | 'sign_in_failed'
  | 'sign_in_blocked'
  | 'password_check_blocked'
  | 'rate_limited'
  | 'cross_origin_refused'
  | 'token_invalid'
  | 'signed_out'
  | 'password_changed'
  | 'password_change_failed'
  | 'sessions_revoked'
  | 'realm_sessions_revoked'
  | 'session_revoked'
  | 'name_changed'
  | 'account_deleted'
  | 'account_disabled'
  | 'account_enabled'
  | 'password_reset_requested'
  | 'password_reset'
  | 'email_verified'
  | 'sign_in_unverified'
  | 'sign_in_second_step'
  | 'second_factor_failed'
  | 'two_step_enabled'
  | 'two_step_disabled'
  | 'two_step_reset'
  | 'recovery_codes_regenerated'
  | 'recovery_code_used'
  | 'passkey_added'
  | 'passkey_removed'
  | 'passkey_renamed'
  | 'passkey_failed'
  | 'passkey_counter_regressed'
  | 'email_change_requested'
  | 'email_change_cancelled'
  | 'email_changed'
  | 'data_exported'
  | 'app_signed_in'
  | 'app_access_removed'
  | 'upstream_failed'
  | 'upstream_mfa_accepted'
  | 'connection_added'
  | 'connection_removed'
  | 'account_taken_over';

export interface EventSource {
  realmId: string;
  clientIp: string | null;
  /** The request the event comes from (the access log's reqId). */
  requestId?: string | null;
  /** The User-Agent the request came with (cut to a sane length when stored). */
  userAgent?: string | null;
}

/** Where a request's events come from: its realm, client address and User-Agent. */
export const eventSource = (ctx: {
  realm: { id: string };
  clientIp: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}): EventSource => ({
  realmId: ctx.realm.id,
  clientIp: ctx.clientIp,
  userAgent: ctx.userAgent,
  requestId: ctx.requestId ?? null,
});

/**
 * The app (OpenID Connect client) an event is about: its client_id, and its name as it is now. An
 * upstream provider's events (connection_added, upstream_failed, …) name the provider the same way: its id and name.
 */
export interface EventApp {
  clientId: string;
  name: string;
}

/**
 * Writes one account event. Never given a password or token: only who, what, when, from where
 * (and which app, for an app's events).
 */
export async function recordEvent(
  db: Database,
  src: EventSource,
  type: AccountEventType,
  userId: string | null = null,
  app: EventApp | null = null,
) {
  await db.insert(accountEvents).values({
    realmId: src.realmId,
    userId,
    type,
    clientIp: src.clientIp,
    userAgent: keptUserAgent(src.userAgent),
    requestId: src.requestId ?? null,
    appClientId: app?.clientId ?? null,
    appName: app?.name ?? null,
  });
}

/**
 * What a deleted account's events are found by: a digest of its realm and email, keyed with
 * SECRET_KEY so a dump cannot be searched with a list of addresses (an operator with the key can).
 */
export const subjectDigest = (vault: Vault, realmId: string, email: string) =>
  vault.digest(`account-events\n${realmId}\n${normalizeEmail(email)}`);

/**
 * Detaches a deleted account's events (inside the deletion's transaction): they stay for the
 * retention window with its email's digest instead of its id, and nothing else that names it;
 * the purge then deletes them like any other. The only change the append-only trigger allows.
 */
export async function detachEvents(tx: Database, vault: Vault, user: User): Promise<void> {
  await tx
    .update(accountEvents)
    .set({
      userId: null,
      lockoutKey: null,
      clientKey: null,
      subjectDigest: subjectDigest(vault, user.realmId, user.email),
    })
    .where(and(eq(accountEvents.userId, user.id), eq(accountEvents.pending, false)));
}
