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

/** A second step's answer: a sign-in's, and whether one of the account's recovery codes was used up for it. */
export const secondStepResult = userResult.extend({
  /** The code was a recovery code (now used): the person may have lost their app, and has one code fewer. */
  recoveryCodeUsed: z.literal(true).optional(),
});

/** The options for navigator.credentials.create() / get(), as WebAuthn's JSON (a challenge among them). */
export const webauthnOptionsResult = z.looseObject({ challenge: z.string() });

/** The realm's upstream providers, for the buttons "Continue with <name>". */
export const upstreamProvidersResult = z.object({
  providers: z.array(z.object({ id: z.string(), name: z.string(), kind: z.string() })),
});

/** Where to send the person to sign in at the provider. */
export const upstreamStartResult = z.object({ location: z.string() });

/** A callback's answer: signed in (or a connection made), and where to go next. */
export const upstreamCallbackResult = z.object({
  user: publicUserSchema.optional(),
  session: deliveredSession,
  knownDevice: z.string().optional(),
  /** A path of this site. */
  next: z.string(),
  /** An unconfirmed account with the provider's confirmed address became this person's: its earlier password and sessions are gone. */
  tookOver: z.literal(true).optional(),
  /** The provider a connection asked for from the account's page was made with. */
  connected: z.string().optional(),
});

/** A form_post's answer kept: the state to resume with at the callback's GET (null: nothing kept). */
export const upstreamKeptResult = z.object({ state: z.string().nullable() });

/** The identity this browser brought that waits for the account holding its address to sign in. */
export const pendingLinkResult = z.object({
  pending: z.object({ provider: z.string(), providerName: z.string(), email: z.string().nullable() }).nullable(),
});
