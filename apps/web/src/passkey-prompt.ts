import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  WebAuthnAbortService,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';

export { PROMPT_STRINGS } from './i18n/prompt-strings';

// The browser's side of signing in with a passkey (@simplewebauthn/browser). The sign-in page
// loads it once it runs (a chunk of its own, after the page is usable): the first visit's
// scripts stay within their budget, and the browser's autofill still offers passkeys at once.
// It imports nothing of the app, so that the app's own code stays in the first chunk.

/** The options of a sign-in or a second step as the server made them, as the library takes them. */
const requestOptions = (options: { challenge: string }) => options as unknown as PublicKeyCredentialRequestOptionsJSON;

/** Whether this browser can use passkeys at all. */
export const canUsePasskeys = browserSupportsWebAuthn;

/** The browser's prompt for one of this site's passkeys (any, or the `allowCredentials` of the options). */
export const askForPasskey = (options: { challenge: string }): Promise<AuthenticationResponseJSON> =>
  startAuthentication({ optionsJSON: requestOptions(options) });

/**
 * Offers this site's passkeys in the browser's autofill of the page's `webauthn` input
 * (conditional mediation), where the browser can: answers the passkey the person picks there, or
 * null when it is not offered or ends without one (another prompt replaced it, the page went,
 * nothing was picked). `live` says whether the page still wants it: asked before each step.
 */
export async function passkeyFromAutofill(
  options: () => Promise<{ challenge: string }>,
  live: () => boolean,
): Promise<AuthenticationResponseJSON | null> {
  try {
    if (!(await browserSupportsWebAuthnAutofill()) || !live()) return null;
    const optionsJSON = requestOptions(await options());
    if (!live()) return null;
    return await startAuthentication({ optionsJSON, useBrowserAutofill: true });
  } catch {
    return null;
  }
}

/** Ends whatever passkey prompt is open (the page that opened it is going). */
export const endPasskeyPrompts = () => WebAuthnAbortService.cancelCeremony();
