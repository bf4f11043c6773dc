import { z } from 'zod';

// What the passkey procedures answer.

/** One of the account's passkeys as its owner sees it. */
export const passkeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  /** The authenticator's kind, where its AAGUID is one we know (iCloud Keychain, Windows Hello…). */
  kind: z.string().nullable(),
  /** Synced between the person's devices (a multi-device credential that is backed up). */
  synced: z.boolean(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
});

export const passkeyListResult = z.object({ passkeys: z.array(passkeyView) });

/** A new passkey; with the account's first second factor, its ten recovery codes (shown once). */
export const passkeyAddedResult = z.object({ passkey: passkeyView, recoveryCodes: z.array(z.string()).optional() });
