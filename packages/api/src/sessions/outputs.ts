import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the session procedures answer. Never a token or its digest, never a full address.

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
