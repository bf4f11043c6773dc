import { z } from 'zod';

// Inputs of the page of apps with access (OpenID Connect clients the account signed in to).

const text = () =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') });

/**
 * Removing an app's access: its `client_id` as the list of apps gives it. Any text is accepted
 * here: an id that is no app the account gave access to, malformed or not, is answered as unknown
 * (404 not_found). No password: it only takes access away.
 */
export const revokeAppSchema = z.object({
  client_id: text().min(1, { error: 'required' }).max(200, { error: 'required' }),
});

export type RevokeAppInput = z.input<typeof revokeAppSchema>;
