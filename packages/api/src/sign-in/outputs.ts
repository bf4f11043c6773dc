import { z } from 'zod';
import { publicUserSchema } from '../kernel/outputs.js';

// What a sign-in answers.

/** A new session, in the result only for a program that asked for its tokens in the body. */
export const deliveredSession = z.object({ token: z.string(), expiresAt: z.date() }).optional();

export const userResult = z.object({
  user: publicUserSchema,
  session: deliveredSession,
  knownDevice: z.string().optional(),
  /** Registration in a realm that requires a confirmed address: no session until the mailed link is followed. */
  emailVerificationRequired: z.literal(true).optional(),
});

/** The options for navigator.credentials.create() / get(), as WebAuthn's JSON (a challenge among them). */
export const webauthnOptionsResult = z.looseObject({ challenge: z.string() });
