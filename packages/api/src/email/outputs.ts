import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the address procedures answer.

export const verifiedResult = okResult.extend({ emailVerified: z.literal(true) });
export const verificationLinkResult = z.object({ email: z.string(), realmName: z.string() });
export const resendResult = okResult.extend({ alreadyVerified: z.boolean() });
