// The words of the parts several security pages share (not the sign-in page): a second factor
// asked again (SecondFactorField), the recovery codes shown once (RecoveryCodes), copying (CopyButton).
import { createTranslator, useTranslator, type StringTables } from './index';

const en = {
  factorRecheck: 'For your security, confirm it is you with your second step: enter a code.',
  factorRecheckPasskey: 'For your security, confirm it is you with your second step: use a passkey, or enter a code.',
  factorUsePasskey: 'Use a passkey',
  factorUsingPasskey: 'Waiting for your passkey…',
  factorConfirmed: 'Confirmed with your passkey. You can go on.',
  codesTitle: 'Save your recovery codes',
  codesEnabled: 'Two-step sign-in is now on.',
  codesRegenerated: 'Here are your new recovery codes. The old ones no longer work.',
  codesWarning:
    'These codes are shown only this once. Keep them somewhere safe, such as your password manager, or print them. If you lose your phone, each code lets you sign in once.',
  codesListLabel: 'Your recovery codes',
  codesCopy: 'Copy codes',
  codesDownload: 'Download as a text file',
  codesDone: 'Done',
  codesFileIntro: 'Recovery codes for {account} ({product}). Each code works once.',
  copied: 'Copied.',
  copyFailed: 'Could not copy: select the text and copy it yourself.',
  codesAppAdded:
    'The authenticator app is on. These new recovery codes replace the ones you had: the old ones no longer work.',
  codesPasskey:
    'Your passkey was added, and two-step sign-in is now on: signing in with your password also asks for your passkey.',
} as const;

export type SecurityKey = keyof typeof en;

const de: Record<SecurityKey, string> = {
  factorRecheck:
    'Bestätigen Sie zu Ihrer Sicherheit mit Ihrem zweiten Schritt, dass Sie es sind: Geben Sie einen Code ein.',
  factorRecheckPasskey:
    'Bestätigen Sie zu Ihrer Sicherheit mit Ihrem zweiten Schritt, dass Sie es sind: Verwenden Sie einen Passkey oder geben Sie einen Code ein.',
  factorUsePasskey: 'Passkey verwenden',
  factorUsingPasskey: 'Warten auf Ihren Passkey…',
  factorConfirmed: 'Mit Ihrem Passkey bestätigt. Sie können fortfahren.',
  codesTitle: 'Speichern Sie Ihre Wiederherstellungscodes',
  codesEnabled: 'Die Anmeldung in zwei Schritten ist jetzt eingeschaltet.',
  codesRegenerated: 'Hier sind Ihre neuen Wiederherstellungscodes. Die alten gelten nicht mehr.',
  codesWarning:
    'Diese Codes werden nur dieses eine Mal angezeigt. Bewahren Sie sie sicher auf, etwa in Ihrem Passwort-Manager, oder drucken Sie sie aus. Wenn Sie Ihr Telefon verlieren, können Sie sich mit jedem Code einmal anmelden.',
  codesListLabel: 'Ihre Wiederherstellungscodes',
  codesCopy: 'Codes kopieren',
  codesDownload: 'Als Textdatei herunterladen',
  codesDone: 'Fertig',
  codesFileIntro: 'Wiederherstellungscodes für {account} ({product}). Jeder Code gilt einmal.',
  copied: 'Kopiert.',
  copyFailed: 'Kopieren nicht möglich: Markieren Sie den Text und kopieren Sie ihn selbst.',
  codesAppAdded:
    'Die Authenticator-App ist eingeschaltet. Diese neuen Wiederherstellungscodes ersetzen Ihre bisherigen: Die alten gelten nicht mehr.',
  codesPasskey:
    'Ihr Passkey wurde hinzugefügt, und die Anmeldung in zwei Schritten ist jetzt eingeschaltet: Bei einer Anmeldung mit Passwort wird auch Ihr Passkey verlangt.',
};

const fr: Record<SecurityKey, string> = {
  factorRecheck:
    'Pour votre sécurité, confirmez qu’il s’agit bien de vous avec votre deuxième étape\u00a0: saisissez un code.',
  factorRecheckPasskey:
    'Pour votre sécurité, confirmez qu’il s’agit bien de vous avec votre deuxième étape\u00a0: utilisez une clé d’accès, ou saisissez un code.',
  factorUsePasskey: 'Utiliser une clé d’accès',
  factorUsingPasskey: 'En attente de votre clé d’accès…',
  factorConfirmed: 'Confirmé avec votre clé d’accès. Vous pouvez continuer.',
  codesTitle: 'Enregistrez vos codes de récupération',
  codesEnabled: 'La connexion en deux étapes est maintenant activée.',
  codesRegenerated: 'Voici vos nouveaux codes de récupération. Les anciens ne fonctionnent plus.',
  codesWarning:
    'Ces codes ne sont affichés que cette fois. Conservez-les en lieu sûr, par exemple dans votre gestionnaire de mots de passe, ou imprimez-les. Si vous perdez votre téléphone, chaque code permet de vous connecter une fois.',
  codesListLabel: 'Vos codes de récupération',
  codesCopy: 'Copier les codes',
  codesDownload: 'Télécharger en fichier texte',
  codesDone: 'Terminé',
  codesFileIntro: 'Codes de récupération pour {account} ({product}). Chaque code fonctionne une fois.',
  copied: 'Copié.',
  copyFailed: 'Copie impossible\u00a0: sélectionnez le texte et copiez-le vous-même.',
  codesAppAdded:
    'L’application d’authentification est activée. Ces nouveaux codes de récupération remplacent les vôtres\u00a0: les anciens ne fonctionnent plus.',
  codesPasskey:
    'Votre clé d’accès a été ajoutée et la connexion en deux étapes est maintenant activée\u00a0: une connexion avec votre mot de passe demande aussi votre clé d’accès.',
};

export const SECURITY_STRINGS: StringTables<SecurityKey> = { en, de, fr };
const translateSecurity = createTranslator(SECURITY_STRINGS);

/** The shared parts' words in the page's language: `(key, params)`. */
export const useSecurityText = () => useTranslator(translateSecurity);
