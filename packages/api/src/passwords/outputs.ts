import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';
import { deliveredSession } from '../sign-in/outputs.js';

// What the password procedures answer.

export const passwordChangedResult = okResult.extend({
  otherSessionsRevoked: z.int().min(0),
  session: deliveredSession,
});

/**
 * A reset request's answer, alike whether or not an account has the address. `retryAfter`
 * (seconds): the address had its share of links in the window, so none was sent this time; ask
 * again after it. Unknown addresses are counted alike, so it tells nothing either.
 */
export const acceptedResult = okResult.extend({ retryAfter: z.int().min(1).optional() });
/** A reset's answer; `email`: the account's address, for the sign-in that follows. */
export const resetResult = okResult.extend({ sessionsRevoked: z.int().min(0), email: z.string() });
