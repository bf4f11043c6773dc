// The two-step sign-in page's words, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  twoStepIntro:
    'With two-step sign-in, signing in asks for your password and then for a 6-digit code from an authenticator app on your phone (such as Google Authenticator, Microsoft Authenticator, 1Password or Aegis). Someone who learns your password still cannot sign in.',
  twoStepIsOff: 'Two-step sign-in is off.',
  twoStepIsOn: 'Two-step sign-in is on.',
  twoStepCodesLeft: 'Unused recovery codes: {count}',
  twoStepCodesLow: 'You are running out of recovery codes: make new ones.',
  twoStepSetUp: 'Set up',
  twoStepSettingUp: 'Setting up…',
  twoStepScanTitle: '1. Add this account to your authenticator app',
  twoStepScanHelp: 'In your authenticator app, add an account and scan this QR code.',
  twoStepQrAlt: 'QR code that adds this account to an authenticator app',
  twoStepOpenApp: 'On this phone? Open the set-up in your authenticator app',
  twoStepKeyHelp: 'Cannot scan it? Enter this set-up key in the app instead (time-based, 6 digits):',
  twoStepCopyKey: 'Copy key',
  twoStepConfirmTitle: '2. Enter the code the app shows',
  twoStepConfirmHelp:
    'The app shows a new 6-digit code every 30 seconds. Enter the one it shows now, and your password.',
  twoStepTurnOn: 'Turn on',
  twoStepTurningOn: 'Turning on…',
  twoStepCancel: 'Cancel',
  twoStepOffTitle: 'Turn off two-step sign-in',
  twoStepOffHelp:
    'Signing in will then ask for your password only, and your recovery codes are deleted. Confirm with your password and a code from your app or a recovery code.',
  twoStepTurnOff: 'Turn off',
  twoStepTurningOff: 'Turning off…',
  twoStepTurnedOff: 'Two-step sign-in is off. Your recovery codes were deleted.',
  newCodesTitle: 'New recovery codes',
  newCodesHelp: 'Makes ten new recovery codes. The ones you have now stop working at once.',
  newCodesSubmit: 'Make new codes',
  newCodesBusy: 'Making codes…',
  twoStepIsOnPasskeys: 'Two-step sign-in is on through your passkeys.',
  twoStepOffPasskeys:
    'A passkey can be the second step too, and signs you in without your password. Adding one turns two-step sign-in on.',
  twoStepAppTitle: 'Authenticator app',
  twoStepAppIsOff:
    'The authenticator app is off. Set one up as another way to do the second step, for when your passkey is not at hand.',
  twoStepAppOffTitle: 'Turn off the authenticator app',
  twoStepAppOffHelp:
    'Signing in then asks for your passkey instead of an app code, and your recovery codes stay. Confirm with your password and a code from your app or a recovery code.',
  twoStepAppTurnedOff: 'The authenticator app is off. Two-step sign-in stays on through your passkeys.',
  twoStepPasskeysHelp: 'A passkey also does the second step, and signs you in without your password.',
} as const;

export type TwoStepKey = keyof typeof en;

const de: Record<TwoStepKey, string> = {
  twoStepIntro:
    'Bei der Anmeldung in zwei Schritten werden Sie nach Ihrem Passwort und danach nach einem 6-stelligen Code aus einer Authenticator-App auf Ihrem Telefon gefragt (etwa Google Authenticator, Microsoft Authenticator, 1Password oder Aegis). Wer Ihr Passwort kennt, kann sich trotzdem nicht anmelden.',
  twoStepIsOff: 'Die Anmeldung in zwei Schritten ist ausgeschaltet.',
  twoStepIsOn: 'Die Anmeldung in zwei Schritten ist eingeschaltet.',
  twoStepCodesLeft: 'Unbenutzte Wiederherstellungscodes: {count}',
  twoStepCodesLow: 'Ihre Wiederherstellungscodes gehen zur Neige: Erstellen Sie neue.',
  twoStepSetUp: 'Einrichten',
  twoStepSettingUp: 'Wird eingerichtet …',
  twoStepScanTitle: '1. Fügen Sie dieses Konto Ihrer Authenticator-App hinzu',
  twoStepScanHelp: 'Fügen Sie in Ihrer Authenticator-App ein Konto hinzu und scannen Sie diesen QR-Code.',
  twoStepQrAlt: 'QR-Code, der dieses Konto einer Authenticator-App hinzufügt',
  twoStepOpenApp: 'Auf diesem Telefon? Einrichtung in Ihrer Authenticator-App öffnen',
  twoStepKeyHelp:
    'Scannen klappt nicht? Geben Sie stattdessen diesen Einrichtungsschlüssel in der App ein (zeitbasiert, 6 Ziffern):',
  twoStepCopyKey: 'Schlüssel kopieren',
  twoStepConfirmTitle: '2. Geben Sie den Code ein, den die App anzeigt',
  twoStepConfirmHelp:
    'Die App zeigt alle 30 Sekunden einen neuen 6-stelligen Code. Geben Sie den aktuellen ein, dazu Ihr Passwort.',
  twoStepTurnOn: 'Einschalten',
  twoStepTurningOn: 'Wird eingeschaltet …',
  twoStepCancel: 'Abbrechen',
  twoStepOffTitle: 'Anmeldung in zwei Schritten ausschalten',
  twoStepOffHelp:
    'Bei der Anmeldung wird dann nur noch Ihr Passwort abgefragt, und Ihre Wiederherstellungscodes werden gelöscht. Bestätigen Sie mit Ihrem Passwort und einem Code aus Ihrer App oder einem Wiederherstellungscode.',
  twoStepTurnOff: 'Ausschalten',
  twoStepTurningOff: 'Wird ausgeschaltet …',
  twoStepTurnedOff: 'Die Anmeldung in zwei Schritten ist ausgeschaltet. Ihre Wiederherstellungscodes wurden gelöscht.',
  newCodesTitle: 'Neue Wiederherstellungscodes',
  newCodesHelp: 'Erstellt zehn neue Wiederherstellungscodes. Ihre bisherigen gelten sofort nicht mehr.',
  newCodesSubmit: 'Neue Codes erstellen',
  newCodesBusy: 'Codes werden erstellt …',
  twoStepIsOnPasskeys: 'Die Anmeldung in zwei Schritten ist über Ihre Passkeys eingeschaltet.',
  twoStepOffPasskeys:
    'Auch ein Passkey kann der zweite Schritt sein, und er meldet Sie ohne Passwort an. Mit dem ersten Passkey wird die Anmeldung in zwei Schritten eingeschaltet.',
  twoStepAppTitle: 'Authenticator-App',
  twoStepAppIsOff:
    'Die Authenticator-App ist ausgeschaltet. Richten Sie eine als weiteren Weg für den zweiten Schritt ein, falls Ihr Passkey nicht zur Hand ist.',
  twoStepAppOffTitle: 'Authenticator-App ausschalten',
  twoStepAppOffHelp:
    'Bei der Anmeldung wird dann statt eines App-Codes Ihr Passkey verlangt, und Ihre Wiederherstellungscodes bleiben. Bestätigen Sie mit Ihrem Passwort und einem Code aus Ihrer App oder einem Wiederherstellungscode.',
  twoStepAppTurnedOff:
    'Die Authenticator-App ist ausgeschaltet. Die Anmeldung in zwei Schritten bleibt über Ihre Passkeys eingeschaltet.',
  twoStepPasskeysHelp: 'Auch ein Passkey erledigt den zweiten Schritt, und er meldet Sie ohne Passwort an.',
};

const fr: Record<TwoStepKey, string> = {
  twoStepIntro:
    'Avec la connexion en deux étapes, la connexion demande votre mot de passe puis un code à 6 chiffres d’une application d’authentification sur votre téléphone (comme Google Authenticator, Microsoft Authenticator, 1Password ou Aegis). Quelqu’un qui connaît votre mot de passe ne peut toujours pas se connecter.',
  twoStepIsOff: 'La connexion en deux étapes est désactivée.',
  twoStepIsOn: 'La connexion en deux étapes est activée.',
  twoStepCodesLeft: 'Codes de récupération inutilisés\u00a0: {count}',
  twoStepCodesLow: 'Il vous reste peu de codes de récupération\u00a0: créez-en de nouveaux.',
  twoStepSetUp: 'Configurer',
  twoStepSettingUp: 'Configuration…',
  twoStepScanTitle: '1. Ajoutez ce compte à votre application d’authentification',
  twoStepScanHelp: 'Dans votre application d’authentification, ajoutez un compte et scannez ce code QR.',
  twoStepQrAlt: 'Code QR qui ajoute ce compte à une application d’authentification',
  twoStepOpenApp: 'Sur ce téléphone\u00a0? Ouvrir la configuration dans votre application d’authentification',
  twoStepKeyHelp:
    'Impossible de scanner\u00a0? Saisissez plutôt cette clé de configuration dans l’application (basée sur le temps, 6 chiffres)\u00a0:',
  twoStepCopyKey: 'Copier la clé',
  twoStepConfirmTitle: '2. Saisissez le code affiché par l’application',
  twoStepConfirmHelp:
    'L’application affiche un nouveau code à 6 chiffres toutes les 30 secondes. Saisissez celui qu’elle affiche maintenant, et votre mot de passe.',
  twoStepTurnOn: 'Activer',
  twoStepTurningOn: 'Activation…',
  twoStepCancel: 'Annuler',
  twoStepOffTitle: 'Désactiver la connexion en deux étapes',
  twoStepOffHelp:
    'La connexion ne demandera alors que votre mot de passe, et vos codes de récupération seront supprimés. Confirmez avec votre mot de passe et un code de votre application ou un code de récupération.',
  twoStepTurnOff: 'Désactiver',
  twoStepTurningOff: 'Désactivation…',
  twoStepTurnedOff: 'La connexion en deux étapes est désactivée. Vos codes de récupération ont été supprimés.',
  newCodesTitle: 'Nouveaux codes de récupération',
  newCodesHelp: 'Crée dix nouveaux codes de récupération. Ceux que vous avez cessent aussitôt de fonctionner.',
  newCodesSubmit: 'Créer de nouveaux codes',
  newCodesBusy: 'Création des codes…',
  twoStepIsOnPasskeys: 'La connexion en deux étapes est activée par vos clés d’accès.',
  twoStepOffPasskeys:
    'Une clé d’accès peut aussi servir de deuxième étape, et vous connecte sans mot de passe. En ajouter une active la connexion en deux étapes.',
  twoStepAppTitle: 'Application d’authentification',
  twoStepAppIsOff:
    'L’application d’authentification est désactivée. Configurez-en une comme autre moyen de faire la deuxième étape, pour le cas où votre clé d’accès n’est pas sous la main.',
  twoStepAppOffTitle: 'Désactiver l’application d’authentification',
  twoStepAppOffHelp:
    'La connexion demandera alors votre clé d’accès au lieu d’un code de l’application, et vos codes de récupération restent. Confirmez avec votre mot de passe et un code de votre application ou un code de récupération.',
  twoStepAppTurnedOff:
    'L’application d’authentification est désactivée. La connexion en deux étapes reste activée par vos clés d’accès.',
  twoStepPasskeysHelp: 'Une clé d’accès fait aussi la deuxième étape, et vous connecte sans mot de passe.',
};

export const TWO_STEP_STRINGS: StringTables<TwoStepKey> = { en, de, fr };
const translateTwoStep = createTranslator(TWO_STEP_STRINGS);

/** The two-step page's words in the page's language: `(key, params)`. */
export const useTwoStepText = () => useTranslator(translateTwoStep);
