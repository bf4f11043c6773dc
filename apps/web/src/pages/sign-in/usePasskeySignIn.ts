import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';
import { useEffect, useRef } from 'react';
import type { Form } from '../../forms/useForm';
import type { SignedInUser } from '../../session';
import { trpc } from '../../trpc';
import { passkeyPrompts, usePasskeyPrompt } from '../../usePasskeyPrompt';
import { assertionAnswer, prompt } from '../../webauthn';

/**
 * Signing in with a passkey alone (a discoverable credential: no address typed first), by the
 * button or from the browser's autofill on the address field (conditional mediation, started once
 * when the form appears where the browser offers it). The autofill waits quietly: its failures
 * are said only once the person chose a passkey there. The button's prompt replaces the
 * autofill's; leaving the form ends whichever is open. Failures of the service go to the form's
 * summary; a prompt the person dismissed is a calm note beside the button.
 */
export function usePasskeySignIn(form: Form<'email' | 'password'>, onSignedIn: (user: SignedInUser) => void) {
  const utils = trpc.useUtils();
  const finishSignIn = trpc.passkeys.signIn.useMutation();
  const passkey = usePasskeyPrompt(form.failWith);

  const finish = async (response: AuthenticationResponseJSON) => {
    const { user } = await finishSignIn.mutateAsync({ response: assertionAnswer(response) });
    onSignedIn(user);
  };
  // The autofill's answer comes whenever the person picks a passkey: it finishes with this render's handlers.
  const latest = useRef({ finish, busyWith: passkey.busyWith });
  latest.current = { finish, busyWith: passkey.busyWith };

  useEffect(() => {
    let live = true;
    let end: (() => void) | undefined;
    void (async () => {
      let response: AuthenticationResponseJSON | null = null;
      try {
        const prompts = await passkeyPrompts();
        end = prompts.endPasskeyPrompts;
        response = await prompts.passkeyFromAutofill(
          () => utils.client.passkeys.signInOptions.mutate(),
          () => live,
        );
      } catch {
        // The code could not load: the button says so when it is used.
      }
      if (!response || !live) return;
      const chosen = response;
      const { finish, busyWith } = latest.current;
      await busyWith(() => finish(chosen));
    })();
    return () => {
      live = false;
      end?.();
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  const signIn = () =>
    passkey.ask(async (prompts, say) => {
      if (!prompts.canUsePasskeys()) return say('passkeyUnsupported');
      const options = await utils.client.passkeys.signInOptions.mutate();
      // Starting this prompt ends the autofill's (one WebAuthn request at a time).
      await finish(await prompt(() => prompts.askForPasskey(options)));
    });

  return { busy: passkey.busy, note: passkey.note, signIn };
}
