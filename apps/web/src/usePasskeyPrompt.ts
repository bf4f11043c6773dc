import type { Locale } from '@accounts/validators';
import { useState } from 'react';
import { WordedError } from './failure';
import { createTranslator, useI18n, type Translator } from './i18n';
import type { PromptKey } from './i18n/prompt-strings';
import { PromptDismissed, PromptFailed } from './webauthn';

/**
 * The passkey code (passkey-prompt.ts, with the words of a prompt's endings), loaded when first
 * needed: once the sign-in page runs, or when a passkey button is used; never with the first scripts.
 */
export const passkeyPrompts = () => import('./passkey-prompt');

export type PasskeyPrompts = Awaited<ReturnType<typeof passkeyPrompts>>;

let translatePrompt: Translator<PromptKey> | undefined;

/** The words of a prompt's endings in `locale`: their table comes with the passkey code, its translator is made once. */
export async function promptWords(locale: Locale): Promise<(key: PromptKey) => string> {
  const { PROMPT_STRINGS } = await passkeyPrompts();
  const translate = (translatePrompt ??= createTranslator(PROMPT_STRINGS));
  return (key) => translate(locale, key);
}

/**
 * A passkey prompt run from a button (signing in, the sign-in's second step, a second factor asked
 * again): `busy` while it lasts, and its endings said. A dismissed prompt is a calm `note` beside
 * the button; a browser or device that could not give a passkey is the form's error, in words;
 * any other failure (the service's refusal) goes to `failWith` as it is.
 */
export function usePasskeyPrompt(failWith: (error: unknown) => void) {
  const { locale } = useI18n();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  /** Runs `work` as busy; its failure goes to `failWith`. */
  const busyWith = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      failWith(error);
    } finally {
      setBusy(false);
    }
  };

  /** Runs `run` with the passkey code loaded; a text it answers is said as the note (no passkeys here). */
  const ask = (run: (prompts: PasskeyPrompts, say: (key: PromptKey) => string) => Promise<string | void>) => {
    setNote(null);
    return busyWith(async () => {
      const prompts = await passkeyPrompts();
      const say = await promptWords(locale);
      try {
        const said = await run(prompts, say);
        if (said) setNote(said);
      } catch (error) {
        if (error instanceof PromptDismissed) setNote(say('passkeyCancelled'));
        else if (error instanceof PromptFailed) failWith(new WordedError(say('passkeyDeviceFailed')));
        else throw error;
      }
    });
  };

  return { busy, note, ask, busyWith };
}
