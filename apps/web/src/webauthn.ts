import type { AuthenticationResponseInput } from '@accounts/validators';
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';

// What the pages share around the browser's passkey prompts (@simplewebauthn/browser): a passkey's
// answer as the server takes it, and what a prompt that gave no passkey means. (Making a passkey
// is the passkeys page's alone: pages/passkeys/AddPasskey.tsx.)

/** The person closed the prompt, said no, or let it time out; or another prompt replaced it. */
export class PromptDismissed extends Error {}

/** The browser's answer as the procedures take it (the same JSON; its extension outputs a plain record). */
export const assertionAnswer = (response: AuthenticationResponseJSON): AuthenticationResponseInput => ({
  ...response,
  clientExtensionResults: { ...response.clientExtensionResults },
});

/** The browser or the device could not give a passkey (another error than a dismissal); `cause` is the browser's. */
export class PromptFailed extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message, { cause });
  }
}

/**
 * Runs the browser's prompt. A prompt the person dismissed (NotAllowedError, which browsers also
 * give for a time-out) or one replaced by another (AbortError) throws PromptDismissed, a calm
 * outcome; any other failure of the browser or the device throws PromptFailed, for the page to
 * put in words. The service's own refusals come later, from the call that checks the answer.
 */
export async function prompt<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (failure.name === 'NotAllowedError' || failure.name === 'AbortError') throw new PromptDismissed(failure.name);
    throw new PromptFailed(failure);
  }
}
