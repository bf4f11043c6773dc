import { accountEvents, type Database } from '@accounts/db';
import { keptUserAgent } from './device.js';

export type AccountEventType =
  | 'registered'
  | 'signed_in'
  | 'sign_in_failed'
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
  | 'data_exported';

export interface EventSource {
  realmId: string;
  clientIp: string | null;
  /** The User-Agent the request came with (cut to a sane length when stored). */
  userAgent?: string | null;
}

/** Where a request's events come from: its realm, client address and User-Agent. */
export const eventSource = (ctx: {
  realm: { id: string };
  clientIp: string | null;
  userAgent?: string | null;
}): EventSource => ({
  realmId: ctx.realm.id,
  clientIp: ctx.clientIp,
  userAgent: ctx.userAgent,
});

/** Writes one account event. Never given a password or token: only who, what, when, from where. */
export async function recordEvent(
  db: Database,
  src: EventSource,
  type: AccountEventType,
  userId: string | null = null,
) {
  await db
    .insert(accountEvents)
    .values({ realmId: src.realmId, userId, type, clientIp: src.clientIp, userAgent: keptUserAgent(src.userAgent) });
}
