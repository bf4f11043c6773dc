import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the procedures behind mailed links answer.

/**
 * A reset request's answer, alike whether or not an account has the address. `retryAfter`
 * (seconds): the address had its share of links in the window, so none was sent this time; ask
 * again after it. Unknown addresses are counted alike, so it tells nothing either.
 */
export const acceptedResult = okResult.extend({ retryAfter: z.int().min(1).optional() });
export const resetResult = okResult.extend({ sessionsRevoked: z.int().min(0) });
export const verifiedResult = okResult.extend({ emailVerified: z.literal(true) });
export const verificationLinkResult = z.object({ email: z.string(), realmName: z.string() });
export const resendResult = okResult.extend({ alreadyVerified: z.boolean() });
