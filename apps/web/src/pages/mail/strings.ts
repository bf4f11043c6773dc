// Words of the pages behind mailed links (forgotten password, reset, address verification) and
// of the account page's address status. Only those pages (loaded on demand) import this table, so
// the sign-in page's script does not carry it.
import { createTranslator, useTranslator } from '../../i18n';

const MAIL_EN = {
  forgotTitle: 'Reset your password',
  resetTitle: 'Choose a new password',
  verifyTitle: 'Confirm your email address',
  forgotIntro: 'Enter the email address of your account in {realm}. We will send you a link to choose a new password.',
  forgotSubmit: 'Send the link',
  forgotBusy: 'Sending…',
  forgotSent:
    'If an account exists for {email}, we have sent a link to it. The link works once, for a limited time. Check your spam folder if nothing arrives.',
  forgotHeld:
    'If an account exists for {email}, we have already sent a link to it. Check your spam folder if nothing arrives. You can ask for another link in {wait}.',
  forgotAgain: 'Use another address',
  backToSignIn: 'Back to sign in',
  resetIntro: 'After the change every device is signed out, this one too; then you sign in with the new password.',
  resetSubmit: 'Set new password',
  resetBusy: 'Setting password…',
  resetNoToken: 'This page needs the link from the mail we sent you. Ask for a new link if you no longer have it.',
  resetNewLink: 'Ask for a new link',
  fieldResetLink: 'Reset link',
  verifyChecking: 'Checking the link…',
  verifyConfirmIntro: 'Confirm {email} as the email address of your account in {realm}.',
  verifyConfirm: 'Confirm this address',
  verifyNotYours: 'Not your account? Leave this page: nothing is confirmed unless you press the button.',
  verifyBusy: 'Confirming your email address…',
  verifyDone: 'Your email address is confirmed.',
  verifyFailed: 'This link did not work: it was already used, has expired, or a newer one was sent.',
  verifyNoToken: 'This page needs the link from the mail we sent you.',
  toAccount: 'Go to your account',
  emailVerified: 'Confirmed',
  emailUnverified: 'Not confirmed yet',
  resendLink: 'Send the link again',
  resendBusy: 'Sending…',
  resendDone: 'We have sent a new link to {email}.',
  resendAlready: 'Your email address is already confirmed.',
  changeTitle: 'Confirm your new email address',
  changeConfirmIntro: 'Move your account at {realm} to {email}?',
  changeConfirm: 'Move my account to this address',
  changeBusy: 'Changing your email address…',
  changeNotYours: 'Did not ask for this? Leave this page: nothing changes unless you press the button.',
  changeDone: 'Your email address is now {email}.',
  changeDoneHelp: 'Sign in with it from now on. Any other device signed in to your account was signed out.',
  changeFailed:
    'This link did not work: it was already used, has expired, the change was cancelled, or a newer one was asked for.',
  changeTaken: '{email} now belongs to another account here, so your address was not changed.',
  changeAgain: 'Ask for another change',
  linkUsed: 'This link was already used, or a newer one was sent since.',
  linkExpired: 'This link has expired.',
  linkUnknown: 'This link is not valid. Check that you opened the whole link from the mail.',
  linkNewTitle: 'Send a new link',
  linkSignInForNew: 'Sign in to send a new link',
  linkChangeAgain: 'Ask for the change again in your settings.',
} as const;

export type MailKey = keyof typeof MAIL_EN;

const MAIL_DE: Record<MailKey, string> = {
  forgotTitle: 'Passwort zurücksetzen',
  resetTitle: 'Neues Passwort wählen',
  verifyTitle: 'E-Mail-Adresse bestätigen',
  forgotIntro:
    'Geben Sie die E-Mail-Adresse Ihres Kontos bei {realm} ein. Wir senden Ihnen einen Link, mit dem Sie ein neues Passwort wählen.',
  forgotSubmit: 'Link senden',
  forgotBusy: 'Wird gesendet…',
  forgotSent:
    'Falls es ein Konto für {email} gibt, haben wir einen Link dorthin gesendet. Der Link funktioniert einmal und nur für begrenzte Zeit. Sehen Sie auch im Spam-Ordner nach, falls nichts ankommt.',
  forgotHeld:
    'Falls es ein Konto für {email} gibt, haben wir bereits einen Link dorthin gesendet. Sehen Sie auch im Spam-Ordner nach, falls nichts ankommt. Einen weiteren Link können Sie in {wait} anfordern.',
  forgotAgain: 'Andere Adresse verwenden',
  backToSignIn: 'Zurück zur Anmeldung',
  resetIntro:
    'Nach der Änderung werden alle Geräte abgemeldet, auch dieses; danach melden Sie sich mit dem neuen Passwort an.',
  resetSubmit: 'Neues Passwort festlegen',
  resetBusy: 'Passwort wird festgelegt…',
  resetNoToken:
    'Diese Seite braucht den Link aus der E-Mail, die wir Ihnen gesendet haben. Fordern Sie einen neuen Link an, wenn Sie ihn nicht mehr haben.',
  resetNewLink: 'Neuen Link anfordern',
  fieldResetLink: 'Link zum Zurücksetzen',
  verifyChecking: 'Link wird geprüft…',
  verifyConfirmIntro: 'Bestätigen Sie {email} als E-Mail-Adresse Ihres Kontos bei {realm}.',
  verifyConfirm: 'Diese Adresse bestätigen',
  verifyNotYours: 'Nicht Ihr Konto? Verlassen Sie diese Seite: Bestätigt wird nur, wenn Sie die Schaltfläche drücken.',
  verifyBusy: 'E-Mail-Adresse wird bestätigt…',
  verifyDone: 'Ihre E-Mail-Adresse ist bestätigt.',
  verifyFailed:
    'Dieser Link hat nicht funktioniert: Er wurde schon benutzt, ist abgelaufen, oder ein neuerer wurde gesendet.',
  verifyNoToken: 'Diese Seite braucht den Link aus der E-Mail, die wir Ihnen gesendet haben.',
  toAccount: 'Zu Ihrem Konto',
  emailVerified: 'Bestätigt',
  emailUnverified: 'Noch nicht bestätigt',
  resendLink: 'Link erneut senden',
  resendBusy: 'Wird gesendet…',
  resendDone: 'Wir haben einen neuen Link an {email} gesendet.',
  resendAlready: 'Ihre E-Mail-Adresse ist bereits bestätigt.',
  changeTitle: 'Neue E-Mail-Adresse bestätigen',
  changeConfirmIntro: 'Ihr Konto bei {realm} auf {email} umziehen?',
  changeConfirm: 'Mein Konto auf diese Adresse umziehen',
  changeBusy: 'E-Mail-Adresse wird geändert…',
  changeNotYours:
    'Nicht von Ihnen angefordert? Verlassen Sie diese Seite: Geändert wird nur, wenn Sie die Schaltfläche drücken.',
  changeDone: 'Ihre E-Mail-Adresse ist jetzt {email}.',
  changeDoneHelp:
    'Melden Sie sich ab jetzt damit an. Alle anderen Geräte, die bei Ihrem Konto angemeldet waren, wurden abgemeldet.',
  changeFailed:
    'Dieser Link hat nicht funktioniert: Er wurde schon benutzt, ist abgelaufen, die Änderung wurde abgebrochen, oder eine neuere wurde angefordert.',
  changeTaken: '{email} gehört inzwischen zu einem anderen Konto hier, daher wurde Ihre Adresse nicht geändert.',
  changeAgain: 'Eine andere Änderung anfordern',
  linkUsed: 'Dieser Link wurde schon benutzt, oder seither wurde ein neuerer gesendet.',
  linkExpired: 'Dieser Link ist abgelaufen.',
  linkUnknown: 'Dieser Link ist ungültig. Prüfen Sie, ob Sie den ganzen Link aus der E-Mail geöffnet haben.',
  linkNewTitle: 'Neuen Link senden',
  linkSignInForNew: 'Anmelden, um einen neuen Link zu senden',
  linkChangeAgain: 'Fordern Sie die Änderung in Ihren Einstellungen erneut an.',
};

const MAIL_FR: Record<MailKey, string> = {
  forgotTitle: 'Réinitialiser votre mot de passe',
  resetTitle: 'Choisir un nouveau mot de passe',
  verifyTitle: 'Confirmer votre adresse e-mail',
  forgotIntro:
    'Saisissez l’adresse e-mail de votre compte sur {realm}. Nous vous enverrons un lien pour choisir un nouveau mot de passe.',
  forgotSubmit: 'Envoyer le lien',
  forgotBusy: 'Envoi…',
  forgotSent:
    'Si un compte existe pour {email}, nous y avons envoyé un lien. Le lien fonctionne une fois, pendant une durée limitée. Vérifiez vos indésirables si rien n’arrive.',
  forgotHeld:
    'Si un compte existe pour {email}, nous y avons déjà envoyé un lien. Vérifiez vos indésirables si rien n’arrive. Vous pourrez demander un autre lien dans {wait}.',
  forgotAgain: 'Utiliser une autre adresse',
  backToSignIn: 'Retour à la connexion',
  resetIntro:
    'Après la modification, tous les appareils sont déconnectés, celui-ci aussi\u00a0; vous vous connectez ensuite avec le nouveau mot de passe.',
  resetSubmit: 'Définir le nouveau mot de passe',
  resetBusy: 'Enregistrement…',
  resetNoToken:
    'Cette page a besoin du lien du message que nous vous avons envoyé. Demandez un nouveau lien si vous ne l’avez plus.',
  resetNewLink: 'Demander un nouveau lien',
  fieldResetLink: 'Lien de réinitialisation',
  verifyChecking: 'Vérification du lien…',
  verifyConfirmIntro: 'Confirmez {email} comme adresse e-mail de votre compte sur {realm}.',
  verifyConfirm: 'Confirmer cette adresse',
  verifyNotYours:
    'Ce n’est pas votre compte\u00a0? Quittez cette page\u00a0: rien n’est confirmé si vous n’appuyez pas sur le bouton.',
  verifyBusy: 'Confirmation de votre adresse e-mail…',
  verifyDone: 'Votre adresse e-mail est confirmée.',
  verifyFailed: 'Ce lien n’a pas fonctionné\u00a0: il a déjà servi, a expiré, ou un lien plus récent a été envoyé.',
  verifyNoToken: 'Cette page a besoin du lien du message que nous vous avons envoyé.',
  toAccount: 'Aller à votre compte',
  emailVerified: 'Confirmée',
  emailUnverified: 'Pas encore confirmée',
  resendLink: 'Renvoyer le lien',
  resendBusy: 'Envoi…',
  resendDone: 'Nous avons envoyé un nouveau lien à {email}.',
  resendAlready: 'Votre adresse e-mail est déjà confirmée.',
  changeTitle: 'Confirmer votre nouvelle adresse e-mail',
  changeConfirmIntro: 'Passer votre compte sur {realm} à {email}\u00a0?',
  changeConfirm: 'Passer mon compte à cette adresse',
  changeBusy: 'Changement de votre adresse e-mail…',
  changeNotYours:
    'Vous n’avez rien demandé\u00a0? Quittez cette page\u00a0: rien ne change tant que vous n’appuyez pas sur le bouton.',
  changeDone: 'Votre adresse e-mail est maintenant {email}.',
  changeDoneHelp: 'Connectez-vous désormais avec elle. Tout autre appareil connecté à votre compte a été déconnecté.',
  changeFailed:
    'Ce lien n’a pas fonctionné\u00a0: il a déjà servi, a expiré, le changement a été annulé, ou un plus récent a été demandé.',
  changeTaken: '{email} appartient désormais à un autre compte ici\u00a0: votre adresse n’a donc pas été changée.',
  changeAgain: 'Demander un autre changement',
  linkUsed: 'Ce lien a déjà servi, ou un lien plus récent a été envoyé depuis.',
  linkExpired: 'Ce lien a expiré.',
  linkUnknown: 'Ce lien n’est pas valide. Vérifiez que vous avez ouvert le lien entier reçu par e-mail.',
  linkNewTitle: 'Envoyer un nouveau lien',
  linkSignInForNew: 'Se connecter pour envoyer un nouveau lien',
  linkChangeAgain: 'Demandez à nouveau le changement dans vos paramètres.',
};

export const MAIL_PAGE_STRINGS = { en: MAIL_EN, de: MAIL_DE, fr: MAIL_FR };
export const translateMail = createTranslator<MailKey>(MAIL_PAGE_STRINGS);

/** The mail pages' words in the page's language: `m(key, params)`, beside the shared `t`. */
export const useMailText = () => useTranslator(translateMail);
