import { MAIL_TEMPLATES } from '../mail/templates.js';
import { z } from 'zod';

// The copy of a person's data (GDPR articles 15 and 20): everything the service holds about the
// account, and nothing secret (no password hash, token, TOTP secret, recovery code or key).
// docs/account-export.schema.json is generated from this schema (npm run export-schema).

const at = z.date();

/**
 * Not listed among the mails: a change of address's confirmation link. It is sent only when the
 * new address is free (a taken one gets an attempt mail, which is its account's), and change_email
 * answers both alike, so listing it would tell what the answer does not. The change itself is
 * `pendingEmailChange` (alike in both cases) and, once made, the `email_changed` event.
 */
export const UNLISTED_MAIL = 'confirm_email_change';

export const accountExportSchema = z.object({
  format: z.literal('accounts-export/1'),
  exportedAt: at,
  realm: z.object({ slug: z.string(), name: z.string() }),
  account: z.object({
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    emailVerifiedAt: at.nullable(),
    createdAt: at,
    passwordChangedAt: at,
    /** The language its mails are written in. */
    locale: z.string(),
    twoStep: z.boolean(),
    /** When the owner dismissed the account page's suggestion of a passkey or two-step sign-in (null: never). */
    secondFactorSuggestionDismissedAt: at.nullable(),
  }),
  /** A change of address asked for and not yet confirmed. */
  pendingEmailChange: z.object({ newEmail: z.string(), expiresAt: at }).nullable(),
  sessions: z.array(
    z.object({
      id: z.uuid(),
      current: z.boolean(),
      userAgent: z.string().nullable(),
      address: z.string().nullable(),
      createdAt: at,
      lastUsedAt: at,
      expiresAt: at,
    }),
  ),
  /** Browsers and programs that signed in before (their credential is never shown). */
  knownDevices: z.array(z.object({ createdAt: at, lastUsedAt: at })),
  events: z.array(
    z.object({
      id: z.uuid(),
      type: z.string(),
      at,
      address: z.string().nullable(),
      userAgent: z.string().nullable(),
      /** The app an event is about (a sign-in to it, its access removed): its client_id and its name then. */
      app: z.object({ clientId: z.string(), name: z.string() }).nullable(),
    }),
  ),
  /**
   * Mail queued or sent about the account (kind, recipient, when, what became of it; never its
   * links), but for UNLISTED_MAIL.
   */
  mails: z.array(
    z.object({
      kind: z.enum(MAIL_TEMPLATES).exclude([UNLISTED_MAIL]),
      to: z.string(),
      queuedAt: at,
      status: z.enum(['pending', 'sent', 'failed']),
      sentAt: at.nullable(),
    }),
  ),
  secondFactors: z.object({
    authenticatorApp: z.object({ createdAt: at, enabledAt: at.nullable() }).nullable(),
    passkeys: z.array(
      z.object({
        name: z.string(),
        kind: z.string().nullable(),
        synced: z.boolean(),
        createdAt: at,
        lastUsedAt: at.nullable(),
      }),
    ),
    recoveryCodes: z.object({ left: z.int().min(0), used: z.int().min(0), issuedAt: at.nullable() }),
  }),
});

export type AccountExport = z.infer<typeof accountExportSchema>;
