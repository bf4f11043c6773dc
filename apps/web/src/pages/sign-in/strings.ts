// The words of the sign-in's second step, loaded with it (most sign-ins never show it).
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  codeStepAppTitle: 'Enter the 6-digit code from your authenticator app',
  codeStepAppHelp:
    'Your password was correct. Open the authenticator app you set up for this account and enter the code it shows now.',
  codeStepRecoveryTitle: 'Enter a recovery code',
  codeStepRecoveryHelp:
    'Enter one of the recovery codes you saved when you turned on two-step sign-in. Each code works only once.',
  codeStepLost:
    'Lost your phone and your recovery codes? Ask the administrator of this service to reset two-step sign-in for your account.',
  codeStepRestart: 'Start again',
  useRecoveryCode: 'Use a recovery code instead',
  useAppCode: 'Use your authenticator app instead',
  codeStepPasskeyTitle: 'Confirm it is you with your passkey',
  codeStepPasskeyHelp:
    'Your password was correct. Use the passkey you added to this account: your fingerprint, face, screen lock or security key.',
  codeStepPasskeyButton: 'Use your passkey',
  codeStepPasskeyUnsupported: 'This browser cannot use passkeys: enter a code below instead.',
  codeStepTriesLeft: '{count} tries left.',
  codeStepTryLeft: '1 try left.',
} as const;

export type SecondStepKey = keyof typeof en;

const de: Record<SecondStepKey, string> = {
  codeStepAppTitle: 'Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App ein',
  codeStepAppHelp:
    'Ihr Passwort war richtig. Öffnen Sie die Authenticator-App, die Sie für dieses Konto eingerichtet haben, und geben Sie den Code ein, den sie jetzt anzeigt.',
  codeStepRecoveryTitle: 'Geben Sie einen Wiederherstellungscode ein',
  codeStepRecoveryHelp:
    'Geben Sie einen der Wiederherstellungscodes ein, die Sie beim Einschalten der Anmeldung in zwei Schritten gespeichert haben. Jeder Code gilt nur einmal.',
  codeStepLost:
    'Telefon und Wiederherstellungscodes verloren? Bitten Sie die Administration dieses Dienstes, die Anmeldung in zwei Schritten für Ihr Konto zurückzusetzen.',
  codeStepRestart: 'Neu beginnen',
  useRecoveryCode: 'Stattdessen einen Wiederherstellungscode verwenden',
  useAppCode: 'Stattdessen die Authenticator-App verwenden',
  codeStepPasskeyTitle: 'Bestätigen Sie mit Ihrem Passkey, dass Sie es sind',
  codeStepPasskeyHelp:
    'Ihr Passwort war richtig. Verwenden Sie den Passkey, den Sie diesem Konto hinzugefügt haben: Fingerabdruck, Gesicht, Bildschirmsperre oder Sicherheitsschlüssel.',
  codeStepPasskeyButton: 'Passkey verwenden',
  codeStepPasskeyUnsupported:
    'Dieser Browser kann keine Passkeys verwenden: Geben Sie stattdessen unten einen Code ein.',
  codeStepTriesLeft: 'Noch {count} Versuche.',
  codeStepTryLeft: 'Noch 1 Versuch.',
};

const fr: Record<SecondStepKey, string> = {
  codeStepAppTitle: 'Saisissez le code à 6 chiffres de votre application d’authentification',
  codeStepAppHelp:
    'Votre mot de passe est correct. Ouvrez l’application d’authentification configurée pour ce compte et saisissez le code qu’elle affiche maintenant.',
  codeStepRecoveryTitle: 'Saisissez un code de récupération',
  codeStepRecoveryHelp:
    'Saisissez l’un des codes de récupération que vous avez enregistrés en activant la connexion en deux étapes. Chaque code ne fonctionne qu’une fois.',
  codeStepLost:
    'Vous avez perdu votre téléphone et vos codes de récupération\u00a0? Demandez à l’administrateur de ce service de réinitialiser la connexion en deux étapes de votre compte.',
  codeStepRestart: 'Recommencer',
  useRecoveryCode: 'Utiliser plutôt un code de récupération',
  useAppCode: 'Utiliser plutôt votre application d’authentification',
  codeStepPasskeyTitle: 'Confirmez que c’est vous avec votre clé d’accès',
  codeStepPasskeyHelp:
    'Votre mot de passe est correct. Utilisez la clé d’accès ajoutée à ce compte\u00a0: empreinte digitale, visage, verrouillage de l’écran ou clé de sécurité.',
  codeStepPasskeyButton: 'Utiliser votre clé d’accès',
  codeStepPasskeyUnsupported:
    'Ce navigateur ne peut pas utiliser de clés d’accès\u00a0: saisissez plutôt un code ci-dessous.',
  codeStepTriesLeft: 'Il reste {count} essais.',
  codeStepTryLeft: 'Il reste 1 essai.',
};

export const SECOND_STEP_STRINGS: StringTables<SecondStepKey> = { en, de, fr };
const translateSecondStep = createTranslator(SECOND_STEP_STRINGS);

/** The second step's words in the page's language: `(key, params)`. */
export const useSecondStepText = () => useTranslator(translateSecondStep);
