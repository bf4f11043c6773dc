import { z } from 'zod';
import { currentPasswordField, nameField } from './schemas.js';
import { secondStepCodeField } from './two-step.js';

// Inputs of the passkey ceremonies. The WebAuthn structures are the JSON the browser's
// PublicKeyCredential.toJSON() (or @simplewebauthn/browser) gives; their contents are checked by
// the server's WebAuthn verification, here only their shape and size.

const text = () =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') });

/** base64url as WebAuthn encodes binary, bounded (an attestation with certificates stays far below). */
const b64url = () =>
  text()
    .max(16_384, { error: 'invalid_type' })
    .regex(/^[A-Za-z0-9_-]*$/, { error: 'invalid_type' });

const extensions = z.record(z.string(), z.unknown()).default({});
const attachment = z.enum(['platform', 'cross-platform']).optional();

/** What navigator.credentials.create() answered, as JSON. */
export const registrationResponseField = z.object({
  id: b64url(),
  rawId: b64url(),
  type: z.literal('public-key', { error: 'invalid_type' }),
  response: z.object({
    clientDataJSON: b64url(),
    attestationObject: b64url(),
    transports: z.array(text().max(32)).max(10).optional(),
  }),
  clientExtensionResults: extensions,
  authenticatorAttachment: attachment,
});

/** What navigator.credentials.get() answered, as JSON. */
export const authenticationResponseField = z.object({
  id: b64url(),
  rawId: b64url(),
  type: z.literal('public-key', { error: 'invalid_type' }),
  response: z.object({
    clientDataJSON: b64url(),
    authenticatorData: b64url(),
    signature: b64url(),
    userHandle: b64url().optional(),
  }),
  clientExtensionResults: extensions,
  authenticatorAttachment: attachment,
});

/** A passkey's id as the list gives it; any other text is answered as an unknown passkey. */
const passkeyId = text().min(1, { error: 'required' }).max(200, { error: 'required' });

/**
 * Asking to add a passkey: the current password, needed when this session has not proved it in
 * the last five minutes (then 422 `password_recheck_required` on `current_password`), and, with
 * two-step sign-in on, a code (app or recovery) when it has not proved a second factor in that
 * time (then 422 `second_factor_recheck_required` on `code`).
 */
export const passkeyRegistrationOptionsSchema = z.object({
  current_password: currentPasswordField.optional(),
  code: secondStepCodeField.optional(),
});

/** The new passkey, and what to call it (the authenticator's kind or the device when none is given). */
export const addPasskeySchema = z.object({ response: registrationResponseField, name: nameField.optional() });

export const renamePasskeySchema = z.object({ passkey_id: passkeyId, name: nameField });

/**
 * Removing a passkey: the password; removing the account's last second factor asks for a code
 * too (app or recovery) unless the session proved a second factor in the last five minutes.
 */
export const removePasskeySchema = z.object({
  passkey_id: passkeyId,
  current_password: currentPasswordField,
  code: secondStepCodeField.optional(),
});

/** A signed-in session's second factor confirmed with one of the account's passkeys. */
export const passkeyRecheckSchema = z.object({ response: authenticationResponseField });

/** Signing in with a passkey alone (a discoverable credential, user verification required). */
export const passkeySignInSchema = z.object({ response: authenticationResponseField });

/** The options of a second step done with a passkey: for the pending sign-in (cookie or `pending_token`). */
export const secondStepPasskeyOptionsSchema = z.object({
  pending_token: text().max(200, { error: 'invalid_type' }).optional(),
});

/** A second step done with a passkey. */
export const secondStepPasskeySchema = z.object({
  response: authenticationResponseField,
  pending_token: text().max(200, { error: 'invalid_type' }).optional(),
});

export type RegistrationResponseInput = z.input<typeof registrationResponseField>;
export type AuthenticationResponseInput = z.input<typeof authenticationResponseField>;
