import { SECOND_STEP_METHODS } from '@accounts/validators';
import { z } from 'zod';
import { okResult, publicUserSchema } from '../kernel/outputs.js';

// What the account procedures answer.

/** A new session, in the result only for a program that asked for its tokens in the body. */
const deliveredSession = z.object({ token: z.string(), expiresAt: z.date() }).optional();

export const userResult = z.object({
  user: publicUserSchema,
  session: deliveredSession,
  knownDevice: z.string().optional(),
  /** Registration in a realm that requires a confirmed address: no session until the mailed link is followed. */
  emailVerificationRequired: z.literal(true).optional(),
});
export const twoStepStatusSchema = z.object({
  enabled: z.boolean(),
  methods: z.array(z.enum(SECOND_STEP_METHODS)),
  recoveryCodesLeft: z.int().min(0),
});

/** The signed-in account, and whether (and how) its sign-in has a second step. */
export const meResult = z.object({ user: publicUserSchema, twoStep: twoStepStatusSchema });

export const passwordChangedResult = okResult.extend({
  otherSessionsRevoked: z.int().min(0),
  session: deliveredSession,
});

export const settingsResult = z.object({
  productName: z.string(),
  realm: z.object({ slug: z.string(), name: z.string(), isDefault: z.boolean() }),
  passwordPolicy: z.object({ minLength: z.int(), maxLength: z.int() }),
});
