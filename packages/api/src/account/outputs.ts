import { z } from 'zod';
import { okResult, publicUserSchema } from '../kernel/outputs.js';

// What the security page's procedures answer. Never a token or its digest, never a full address.

export const sessionInfoSchema = z.object({
  /** Opaque: what revokeSession takes. */
  id: z.string(),
  /** The caller's own session. */
  current: z.boolean(),
  /** Browser and system from the User-Agent the session began with ("Firefox 128 on Windows 10"); null when unknown. */
  device: z.string().nullable(),
  /** The address it began from, host part hidden ("203.0.113.x", "2001:db8:85a3::/48"); null when unknown. */
  address: z.string().nullable(),
  createdAt: z.date(),
  lastUsedAt: z.date(),
});

export const sessionsResult = z.object({ sessions: z.array(sessionInfoSchema) });

export const revokeSessionResult = okResult.extend({ signedOut: z.boolean() });
export const revokeOtherSessionsResult = okResult.extend({ revoked: z.int().min(0) });

export const activityEventSchema = z.object({
  /** The event's own random UUID: it tells nothing of other accounts' events. */
  id: z.string(),
  at: z.date(),
  /** registered, signed_in, sign_in_failed, signed_out, password_changed, password_change_failed, sessions_revoked, session_revoked, name_changed, … */
  type: z.string(),
  device: z.string().nullable(),
  address: z.string().nullable(),
  /** A refused attempt (a wrong password). */
  failed: z.boolean(),
});

export const activityResult = z.object({
  events: z.array(activityEventSchema),
  /** Pass as `cursor` for the next (older) page (opaque: the last event's id); null on the last page. */
  nextCursor: z.string().nullable(),
});

export const nameChangedResult = z.object({ user: publicUserSchema });
export const accountDeletedResult = okResult;
