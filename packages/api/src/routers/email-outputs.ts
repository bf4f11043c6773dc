import { z } from 'zod';
import { okResult } from '../outputs.js';

// What the procedures behind mailed links answer.

export const acceptedResult = okResult;
export const resetResult = okResult.extend({ sessionsRevoked: z.int().min(0) });
export const verifiedResult = okResult.extend({ emailVerified: z.literal(true) });
export const verificationLinkResult = z.object({ email: z.string(), realmName: z.string() });
export const resendResult = okResult.extend({ alreadyVerified: z.boolean() });
