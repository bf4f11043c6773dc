// The words of the page that deletes the account, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  deleteIntro: 'This cannot be undone. Deleting your account removes:',
  deleteWhatAccount: 'your name, email address and password;',
  deleteWhatSessions: 'every device signed in to it: they are all signed out;',
  deleteWhatSignIn: 'its passkeys, two-step sign-in, connected accounts and the access of apps;',
  deleteWhatActivity: 'its activity history.',
  deleteCopyFirst: 'Want a copy of everything held about you first?',
  deleteCancel: 'Cancel',
  deleteAfter: 'Afterwards, this email address may be used to create a new account.',
  deleteSubmit: 'Delete my account',
  deleteBusy: 'Deleting account…',
  accountDeleted: 'Your account has been deleted, and you have been signed out.',
  createAnother: 'Create a new account',
} as const;

export type DeleteKey = keyof typeof en;

const de: Record<DeleteKey, string> = {
  deleteIntro: 'Das kann nicht rückgängig gemacht werden. Beim Löschen Ihres Kontos werden entfernt:',
  deleteWhatAccount: 'Ihr Name, Ihre E-Mail-Adresse und Ihr Passwort;',
  deleteWhatSessions: 'alle angemeldeten Geräte: Sie werden alle abgemeldet;',
  deleteWhatSignIn: 'seine Passkeys, die Anmeldung in zwei Schritten, verbundene Konten und der Zugriff von Apps;',
  deleteWhatActivity: 'der Aktivitätsverlauf.',
  deleteCopyFirst: 'Möchten Sie vorher eine Kopie von allem, was über Sie gespeichert ist?',
  deleteCancel: 'Abbrechen',
  deleteAfter: 'Danach kann mit dieser E-Mail-Adresse ein neues Konto erstellt werden.',
  deleteSubmit: 'Mein Konto löschen',
  deleteBusy: 'Konto wird gelöscht …',
  accountDeleted: 'Ihr Konto wurde gelöscht, und Sie wurden abgemeldet.',
  createAnother: 'Neues Konto erstellen',
};

const fr: Record<DeleteKey, string> = {
  deleteIntro: 'Cette action est irréversible. La suppression de votre compte efface\u00a0:',
  deleteWhatAccount: 'votre nom, votre adresse e-mail et votre mot de passe ;',
  deleteWhatSessions: 'tous les appareils connectés\u00a0: ils sont tous déconnectés ;',
  deleteWhatSignIn: 'ses clés d’accès, la connexion en deux étapes, les comptes associés et l’accès des applications ;',
  deleteWhatActivity: 'son historique d’activité.',
  deleteCopyFirst: 'Vous voulez d’abord une copie de tout ce qui est conservé à votre sujet ?',
  deleteCancel: 'Annuler',
  deleteAfter: 'Ensuite, cette adresse e-mail pourra servir à créer un nouveau compte.',
  deleteSubmit: 'Supprimer mon compte',
  deleteBusy: 'Suppression du compte…',
  accountDeleted: 'Votre compte a été supprimé et vous avez été déconnecté.',
  createAnother: 'Créer un nouveau compte',
};

export const DELETE_STRINGS: StringTables<DeleteKey> = { en, de, fr };
const translateDelete = createTranslator(DELETE_STRINGS);

/** The delete page's words in the page's language: `(key, params)`. */
export const useDeleteText = () => useTranslator(translateDelete);
