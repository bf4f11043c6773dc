import { loadPasswordEstimator, type PasswordEstimator } from '@accounts/validators';
import { useEffect, useState } from 'react';

let loaded: PasswordEstimator | null = null;

/**
 * The form's schema and the strength meter ask about the same password on every render; the
 * answers for the last few are kept so a keystroke costs one estimate, not several.
 */
function remembering(estimator: PasswordEstimator, size = 16): PasswordEstimator {
  const recent = new Map<string, number>();
  return {
    guessesLog10(password, userInputs) {
      const key = JSON.stringify([password, userInputs]);
      let value = recent.get(key);
      if (value === undefined) {
        value = estimator.guessesLog10(password, userInputs);
        if (recent.size >= size) recent.delete(recent.keys().next().value!);
      } else {
        recent.delete(key);
      }
      recent.set(key, value);
      return value;
    },
  };
}

const isNewPasswordField = (target: EventTarget | null) =>
  target instanceof HTMLInputElement && target.autocomplete === 'new-password';

/**
 * The server's password estimator, fetched (as a chunk of its own: 1.7 MB of dictionaries, 850 kB
 * gzipped) only by the pages where a new password is typed, and only once a new-password field is
 * first used: reading the dictionaries is a long task that would otherwise hold up the page while
 * it becomes usable. Null until it has arrived, or if it cannot load: then the server alone
 * judges, and the meter calls nothing acceptable.
 */
export function usePasswordEstimator(): PasswordEstimator | null {
  const [estimator, setEstimator] = useState(loaded);
  useEffect(() => {
    if (loaded) return;
    let live = true;
    // Focused, typed in, or filled by a password manager (which need not focus it).
    const uses = ['focusin', 'input', 'change'] as const;
    const stopListening = () => uses.forEach((type) => document.removeEventListener(type, onUse));
    const load = () => {
      stopListening();
      loadPasswordEstimator().then(
        (e) => {
          loaded ??= remembering(e);
          if (live) setEstimator(loaded);
        },
        () => {},
      );
    };
    const onUse = (event: Event) => {
      if (isNewPasswordField(event.target)) load();
    };
    uses.forEach((type) => document.addEventListener(type, onUse));
    // A field that had focus already (typed in before the app ran).
    if (isNewPasswordField(document.activeElement)) load();
    return () => {
      live = false;
      stopListening();
    };
  }, []);
  return estimator;
}
