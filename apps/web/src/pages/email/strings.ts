// The email address page's words, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  emailIntro:
    'This address signs you in and receives the mails about your account. To change it, enter the new one: we send a link there, and your address changes only when that link is followed.',
  emailCurrent: 'Current address',
  emailPendingTitle: 'A change is waiting',
  emailPending: 'Your account moves to {email} once the link we sent there is followed. The link works until {time}.',
  emailPendingCancel: 'Cancel the change',
  emailPendingCancelling: 'Cancelling…',
  emailCancelled: 'The change was cancelled: the link sent to {email} no longer works.',
  emailChangeTitle: 'Change your email address',
  fieldNewEmail: 'New email address',
  emailSubmit: 'Send the confirmation link',
  emailBusy: 'Sending…',
  emailSent: 'We sent a link to {email}. Your address changes when you follow it.',
  emailSentHelp: 'The link works once, for 24 hours. Until then you sign in with your current address.',
} as const;

export type EmailKey = keyof typeof en;

const de: Record<EmailKey, string> = {
  emailIntro:
    'Mit dieser Adresse melden Sie sich an, und an sie gehen die E-Mails zu Ihrem Konto. Um sie zu ändern, geben Sie die neue ein: Wir senden einen Link dorthin, und Ihre Adresse ändert sich erst, wenn dieser Link geöffnet und bestätigt wird.',
  emailCurrent: 'Aktuelle Adresse',
  emailPendingTitle: 'Eine Änderung steht aus',
  emailPending:
    'Ihr Konto zieht auf {email} um, sobald der Link bestätigt wird, den wir dorthin gesendet haben. Der Link funktioniert bis {time}.',
  emailPendingCancel: 'Änderung abbrechen',
  emailPendingCancelling: 'Wird abgebrochen…',
  emailCancelled: 'Die Änderung wurde abgebrochen: Der an {email} gesendete Link funktioniert nicht mehr.',
  emailChangeTitle: 'E-Mail-Adresse ändern',
  fieldNewEmail: 'Neue E-Mail-Adresse',
  emailSubmit: 'Bestätigungslink senden',
  emailBusy: 'Wird gesendet…',
  emailSent: 'Wir haben einen Link an {email} gesendet. Ihre Adresse ändert sich, wenn Sie ihm folgen.',
  emailSentHelp:
    'Der Link funktioniert einmal, 24 Stunden lang. Bis dahin melden Sie sich mit Ihrer aktuellen Adresse an.',
};

const fr: Record<EmailKey, string> = {
  emailIntro:
    'Cette adresse vous connecte et reçoit les e-mails concernant votre compte. Pour la changer, saisissez la nouvelle\u00a0: nous y envoyons un lien, et votre adresse ne change que lorsque ce lien est suivi.',
  emailCurrent: 'Adresse actuelle',
  emailPendingTitle: 'Un changement est en attente',
  emailPending:
    'Votre compte passera à {email} dès que le lien que nous y avons envoyé sera suivi. Le lien fonctionne jusqu’au {time}.',
  emailPendingCancel: 'Annuler le changement',
  emailPendingCancelling: 'Annulation…',
  emailCancelled: 'Le changement a été annulé\u00a0: le lien envoyé à {email} ne fonctionne plus.',
  emailChangeTitle: 'Changer votre adresse e-mail',
  fieldNewEmail: 'Nouvelle adresse e-mail',
  emailSubmit: 'Envoyer le lien de confirmation',
  emailBusy: 'Envoi…',
  emailSent: 'Nous avons envoyé un lien à {email}. Votre adresse change lorsque vous le suivez.',
  emailSentHelp:
    'Le lien fonctionne une fois, pendant 24\u00a0heures. D’ici là, vous vous connectez avec votre adresse actuelle.',
};

export const EMAIL_STRINGS: StringTables<EmailKey> = { en, de, fr };
const translateEmail = createTranslator(EMAIL_STRINGS);

/** The email address page's words in the page's language: `(key, params)`. */
export const useEmailText = () => useTranslator(translateEmail);
