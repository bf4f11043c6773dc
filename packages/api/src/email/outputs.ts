import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the address procedures answer.

export const verifiedResult = okResult.extend({ emailVerified: z.literal(true) });
export const verificationLinkResult = z.object({ email: z.string(), realmName: z.string() });
export const resendResult = okResult.extend({ alreadyVerified: z.boolean() });

/**
 * Where a mailed link stands (`email.checkLink`). `email`: for a used or expired reset or
 * verification link, the account's address, to fill in the form that asks for a new link (the link
 * was mailed there, so whoever holds it learns nothing new); never for an unknown link, a usable
 * one, a change of address (its new link is asked for signed in) or a disabled account.
 */
export const linkStateResult = z.object({
  state: z.enum(['usable', 'used', 'expired', 'unknown']),
  email: z.string().optional(),
});
