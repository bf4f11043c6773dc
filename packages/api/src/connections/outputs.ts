import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the procedures of the connected accounts answer.

export const connectionsResult = z.object({
  connections: z.array(
    z.object({
      /** The provider's id: what remove takes. */
      provider: z.string(),
      providerName: z.string(),
      /** The address the provider gave at the last sign-in with it. */
      email: z.string().nullable(),
      connectedAt: z.date(),
      lastUsedAt: z.date(),
    }),
  ),
  /** The realm's providers the account is not connected to yet (each can be connected). */
  available: z.array(z.object({ id: z.string(), name: z.string() })),
  /** Whether the account has a password (without one, the last connection cannot be removed unless a passkey is left). */
  hasPassword: z.boolean(),
});

export const connectResult = z.object({ location: z.string() });

export const removeConnectionResult = okResult;
