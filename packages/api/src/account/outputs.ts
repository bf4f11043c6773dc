import { z } from 'zod';
import { SECOND_STEP_METHODS } from '@accounts/validators';
import { okResult, publicUserSchema } from '../kernel/outputs.js';

// What the account's own procedures answer. Never a token or its digest, never a full address.

export const activityEventSchema = z.object({
  /** The event's own random UUID: it tells nothing of other accounts' events. */
  id: z.string(),
  at: z.date(),
  /** registered, signed_in, sign_in_failed, signed_out, password_changed, password_change_failed, sessions_revoked, session_revoked, name_changed, app_signed_in, app_access_removed, … */
  type: z.string(),
  device: z.string().nullable(),
  address: z.string().nullable(),
  /** A refused attempt (a wrong password). */
  failed: z.boolean(),
  /** The app an event is about (app_signed_in, app_access_removed): its name then; null for other events. */
  app: z.string().nullable(),
  /** A sign-in (`signed_in`) from a device the account did not know then (its owner was mailed a notice); absent otherwise. */
  newDevice: z.literal(true).optional(),
});

export const activityResult = z.object({
  events: z.array(activityEventSchema),
  /** Pass as `cursor` for the next (older) page (opaque: the last event's id); null on the last page. */
  nextCursor: z.string().nullable(),
});

export const nameChangedResult = z.object({ user: publicUserSchema });
export const accountDeletedResult = okResult;

export const twoStepStatusSchema = z.object({
  enabled: z.boolean(),
  methods: z.array(z.enum(SECOND_STEP_METHODS)),
  recoveryCodesLeft: z.int().min(0),
});

/** What the account page says of the account's sign-in besides its second step. */
export const accountSecuritySchema = z.object({
  /** When the password was last set (registration, a change, a reset); null: the account has none (made by signing in elsewhere). */
  passwordChangedAt: z.date().nullable(),
  /**
   * Whether the account page suggests adding a passkey or two-step sign-in: the account has
   * neither, and its owner has not dismissed the suggestion (account.dismissSecondFactorSuggestion).
   */
  suggestSecondFactor: z.boolean(),
});

/** The signed-in account, whether (and how) its sign-in has a second step, and the rest of its sign-in's state. */
export const meResult = z.object({
  user: publicUserSchema,
  twoStep: twoStepStatusSchema,
  security: accountSecuritySchema,
});

/** The suggestion is dismissed for good (it was already, or is now). */
export const suggestionDismissedResult = okResult;

export const settingsResult = z.object({
  productName: z.string(),
  /** `name` is the one people see (the service's for an unnamed default realm); `named`, whether an operator gave it. */
  realm: z.object({ slug: z.string(), name: z.string(), isDefault: z.boolean(), named: z.boolean() }),
  passwordPolicy: z.object({ minLength: z.int(), maxLength: z.int() }),
});
