import { changeNameSchema } from '@accounts/validators';
import { problemOf, type RouterOutputs } from '../../trpc';

/** A passkey of the account, as the page lists it. */
export type Passkey = RouterOutputs['passkeys']['list']['passkeys'][number];

/** A refusal that says the passkey is gone (removed or renamed elsewhere meanwhile): the page's to say. */
export const isGone = (error: unknown) => problemOf(error)?.code === 'not_found';

// The rules of the shared schemas the page's forms take theirs from. The passkey schemas
// themselves are not imported: their WebAuthn shapes would add zod parts to every page's vendor chunk.

/** A passkey's name follows a person's name (as renamePasskeySchema does). */
export const RENAME_SCHEMA = changeNameSchema;
