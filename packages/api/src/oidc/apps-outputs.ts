import { z } from 'zod';
import { okResult } from '../kernel/outputs.js';

// What the procedures of the apps with access answer. Never a token, a code or a grant's id.

/** The scopes an app may be granted, in the order they are shown (what each lets it see: docs/oidc.md). */
export const APP_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
export type AppScope = (typeof APP_SCOPES)[number];

export const appInfoSchema = z.object({
  /** The app's `client_id`: what revoke takes. */
  clientId: z.string(),
  /** Its name, as its operator registered it. */
  name: z.string(),
  /** The service's own app (no consent was asked). */
  firstParty: z.boolean(),
  /**
   * What it may see: the scopes the account granted it (`openid`: that it is you; `profile`: your
   * name and language; `email`: your email address; `offline_access`: stay signed in).
   */
  scopes: z.array(z.enum(APP_SCOPES)),
  /** When access was first given (its oldest live grant). */
  grantedAt: z.date(),
  /** When it last got a token (or, without one, access was given). */
  lastUsedAt: z.date(),
});

export const appsResult = z.object({ apps: z.array(appInfoSchema) });

export const revokeAppResult = okResult;
