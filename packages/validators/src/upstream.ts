import { z } from 'zod';

// Inputs of sign-in through upstream identity providers and of the connected-accounts page.

const text = () =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : 'invalid_type') });

/** A provider's id in the realm's addresses (/users/oauth/<id>/start): what an operator named it. */
export const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** Any text: an id that names no provider of the realm is answered 404 `provider_unknown`. */
const providerId = () => text().min(1, { error: 'required' }).max(64, { error: 'provider_unknown' });

/** Starting a sign-in (or, signed in, a connection) at a provider; `next` is held to this site. */
export const upstreamStartSchema = z.object({
  provider: providerId(),
  next: text().max(2000).optional(),
});

/** What the provider sent back to the callback (its query, or its form_post body): checked by the flow. */
export const upstreamCallbackSchema = z.object({
  provider: providerId(),
  state: text().max(2000).optional(),
  code: text().max(4000).optional(),
  iss: text().max(2000).optional(),
  error: text().max(200).optional(),
  error_description: text().max(2000).optional(),
  /** Apple's first authorization: the person's name, as JSON. */
  user: text().max(4000).optional(),
});

/** Removing a connected account: the provider's id as the list gives it. */
export const removeConnectionSchema = z.object({ provider: providerId() });

export type UpstreamCallbackInput = z.output<typeof upstreamCallbackSchema>;
