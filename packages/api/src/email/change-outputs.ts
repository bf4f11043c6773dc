import { z } from 'zod';

// What the change-of-address procedures answer.

/** A change asked for and not yet confirmed: the address it moves to, and until when its link works. */
export const pendingEmailChangeResult = z.object({
  pending: z.object({ newEmail: z.string(), expiresAt: z.date() }).nullable(),
});

/** What a confirmation link would do, without using it up: the page shows it before the person confirms. */
export const emailChangeLinkResult = z.object({ newEmail: z.string(), realmName: z.string() });

export const emailChangedResult = z.object({ ok: z.literal(true), email: z.string() });
