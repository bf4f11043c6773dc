import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import { PASSWORD_ESTIMATE_LENGTH, type PasswordEstimator } from './password-policy.js';

// zxcvbn-ts with the common password list (the zxcvbn list plus diceware words), the English
// dictionaries (common words, Wikipedia, first and last names) and the keyboard layouts.
// Imported statically by the server and dynamically by the browser (loadPasswordEstimator).

let instance: PasswordEstimator | undefined;

/** The one estimator of this process, built on first use (building ranks the dictionaries, ~0.3 s). */
export function passwordEstimator(): PasswordEstimator {
  if (instance) return instance;
  const zxcvbn = new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    maxLength: PASSWORD_ESTIMATE_LENGTH,
    // Each allowed l33t substitution multiplies the variants tried; 4 still finds `p@ssw0rd`
    // while keeping a 64-character worst case to tens of milliseconds.
    l33tMaxSubstitutions: 4,
  });
  instance = { guessesLog10: (password, userInputs) => zxcvbn.check(password, [...userInputs]).guessesLog10 };
  return instance;
}
