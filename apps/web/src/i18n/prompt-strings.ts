import type { StringTables } from './index';

// What a passkey prompt of the browser can end with, when it gives no passkey. These words load
// with the passkey code (the sign-in page loads it once it runs), not with the first scripts: the
// table imports nothing but its type, and its translator is made where the code is loaded
// (usePasskeyPrompt.ts's promptWords).

export type PromptKey = 'passkeyCancelled' | 'passkeyUnsupported' | 'passkeyDeviceFailed';

export const PROMPT_STRINGS: StringTables<PromptKey> = {
  en: {
    passkeyCancelled: 'No passkey was used: the request was cancelled or timed out. Try again when you are ready.',
    passkeyUnsupported: 'This browser cannot use passkeys. Sign in with your email address and password instead.',
    passkeyDeviceFailed: 'Your browser or device could not use a passkey here. Try again, or use another way.',
  },
  de: {
    passkeyCancelled:
      'Es wurde kein Passkey verwendet: Die Anfrage wurde abgebrochen oder ist abgelaufen. Versuchen Sie es erneut, wenn Sie bereit sind.',
    passkeyUnsupported:
      'Dieser Browser kann keine Passkeys verwenden. Melden Sie sich stattdessen mit E-Mail-Adresse und Passwort an.',
    passkeyDeviceFailed:
      'Ihr Browser oder Gerät konnte hier keinen Passkey verwenden. Versuchen Sie es erneut oder wählen Sie einen anderen Weg.',
  },
  fr: {
    passkeyCancelled:
      'Aucune clé d’accès n’a été utilisée\u00a0: la demande a été annulée ou a expiré. Réessayez quand vous serez prêt.',
    passkeyUnsupported:
      'Ce navigateur ne peut pas utiliser de clés d’accès. Connectez-vous plutôt avec votre adresse e-mail et votre mot de passe.',
    passkeyDeviceFailed:
      'Votre navigateur ou appareil n’a pas pu utiliser de clé d’accès ici. Réessayez, ou choisissez un autre moyen.',
  },
};
