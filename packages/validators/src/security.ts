import { z } from 'zod';
import { currentPasswordField, nameField } from './schemas.js';

// Inputs of the account's security page: its sessions, its activity, its name, closing it.

const text = () =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') });

/**
 * A session's id as the session list gives it. Any text is accepted here: an id that is not one
 * of the caller's sessions, malformed or not, is answered as unknown (404 not_found), so the
 * answer never tells another account's session from no session. Ending another session needs
 * `current_password` (required then); ending the caller's own is a sign-out and needs none.
 */
export const revokeSessionSchema = z.object({
  session_id: text().min(1, { error: 'required' }).max(200, { error: 'required' }),
  current_password: currentPasswordField.optional(),
});

/** Ending every other session: the current password first, so a stolen session alone cannot. */
export const revokeOtherSessionsSchema = z.object({ current_password: currentPasswordField });

/** The same name rules as at registration. */
export const changeNameSchema = z.object({ name: nameField });

export const deleteAccountSchema = z.object({ current_password: currentPasswordField });

/**
 * An activity cursor is the opaque `nextCursor` of the previous page (the 16 bytes of an event's
 * random public id, as base64url); empty or absent asks for the first page.
 */
export const ACTIVITY_CURSOR = /^(?:[A-Za-z0-9_-]{21}[AQgw])?$/;

export const activitySchema = z.object({
  cursor: text().regex(ACTIVITY_CURSOR, { error: 'cursor_invalid' }).optional(),
});

export type RevokeSessionInput = z.input<typeof revokeSessionSchema>;
export type RevokeOtherSessionsInput = z.input<typeof revokeOtherSessionsSchema>;
export type ChangeNameInput = z.input<typeof changeNameSchema>;
export type DeleteAccountInput = z.input<typeof deleteAccountSchema>;
export type ActivityInput = z.input<typeof activitySchema>;

/** A copy of one's data: the current password, unless the session proved it in the last five minutes. */
export const exportDataSchema = z.object({ current_password: currentPasswordField.optional() });
export type ExportDataInput = z.input<typeof exportDataSchema>;
