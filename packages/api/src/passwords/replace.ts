import type { Database, User } from '@accounts/db';
import { endKnownDevices } from '../credentials/known-devices.js';
import { queuePasswordNotice } from '../mail/notices.js';
import type { Context } from '../kernel/context.js';
import { eventSource, recordEvent } from '../records/events.js';
import { endSessions } from '../records/sessions.js';
import { invalidateTokens } from '../records/tokens.js';

/** What a change keeps: the caller's own session and known device (a reset keeps neither). */
export interface Kept {
  sessionId?: string;
  knownDevice?: string | null;
}

/**
 * What a new password ends, in the transaction that sets it: every other session, every other
 * known device (browsers that knew the old password are no longer trusted as the owner's), the
 * reset links still out; then the owner is told. Returns how many sessions ended.
 */
export async function endWhatTheOldPasswordOpened(
  tx: Database,
  ctx: Context,
  user: User,
  why: 'changed' | 'reset',
  kept: Kept = {},
): Promise<number> {
  const revoked = await endSessions(tx, user.id, kept.sessionId ?? null);
  await endKnownDevices(tx, user.id, kept.knownDevice ?? null);
  if (revoked > 0) await recordEvent(tx, eventSource(ctx), 'sessions_revoked', user.id);
  await invalidateTokens(tx, user.id, 'reset_password');
  await queuePasswordNotice(tx, ctx, user, why);
  return revoked;
}
