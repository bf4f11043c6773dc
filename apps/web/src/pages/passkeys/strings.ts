// The passkeys page's words, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  passkeysIntro:
    'A passkey signs you in with your fingerprint, face, screen lock or a security key instead of your password. It only works on this site, so it cannot be phished. Once you have one, a sign-in with your password also asks for it, as a second step.',
  passkeysNone: 'You have no passkeys yet.',
  passkeySynced: 'Synced',
  passkeySyncedHelp: 'Synced between your devices by your password manager or platform',
  passkeyCreated: 'Added {time}',
  passkeyLastUsed: 'Last used {time}',
  passkeyNeverUsed: 'Not used yet',
  passkeyRename: 'Rename',
  passkeyRenameLabel: 'Rename {name}',
  passkeyNameField: 'Name of the passkey',
  passkeySaveName: 'Save name',
  passkeySavingName: 'Saving…',
  passkeyRenamed: 'The passkey is now called {name}.',
  passkeyRemove: 'Remove',
  passkeyRemoveLabel: 'Remove {name}',
  passkeyRemoving: 'Removing…',
  passkeyRemoveConfirm: 'Enter your current password to remove {name}.',
  passkeyRemoveLast: 'It is your only second step: two-step sign-in turns off, and your recovery codes are deleted.',
  passkeyRemoved: '{name} was removed.',
  passkeyRemovedLast: '{name} was removed. Two-step sign-in is off, and your recovery codes were deleted.',
  passkeyCancel: 'Cancel',
  passkeyAddTitle: 'Add a passkey',
  passkeyNeedsScripts:
    'Adding a passkey needs JavaScript: your browser’s passkey prompt only opens from a script. Allow scripts on this site to add one.',
  passkeyAddHelp:
    'Your browser then asks where to keep it: on this device, in your password manager, or on a phone or security key.',
  passkeyAddName: 'Name (optional)',
  passkeyAddNameHelp: 'For example “Work laptop”. Left empty, the passkey is named after your device.',
  passkeyAdd: 'Add a passkey',
  passkeyAdding: 'Adding…',
  passkeyAdded: 'Your passkey {name} was added.',
  passkeyRecheck: 'For your security, enter your current password to add a passkey.',
  passkeyAddCancelled: 'No passkey was added: the request was cancelled or timed out. Try again when you are ready.',
  passkeyAlreadyOnDevice: 'This device already has a passkey for your account.',
  passkeyAddUnsupported:
    'This browser cannot make passkeys. To add one, open this page in a current browser such as Chrome, Edge, Firefox or Safari.',
} as const;

export type PasskeysKey = keyof typeof en;

const de: Record<PasskeysKey, string> = {
  passkeysIntro:
    'Mit einem Passkey melden Sie sich per Fingerabdruck, Gesicht, Bildschirmsperre oder Sicherheitsschlüssel an statt mit Ihrem Passwort. Er funktioniert nur auf dieser Website und kann daher nicht abgefischt werden. Sobald Sie einen haben, wird er bei einer Anmeldung mit Passwort als zweiter Schritt verlangt.',
  passkeysNone: 'Sie haben noch keine Passkeys.',
  passkeySynced: 'Synchronisiert',
  passkeySyncedHelp: 'Von Ihrem Passwort-Manager oder Ihrer Plattform zwischen Ihren Geräten synchronisiert',
  passkeyCreated: 'Hinzugefügt {time}',
  passkeyLastUsed: 'Zuletzt verwendet {time}',
  passkeyNeverUsed: 'Noch nicht verwendet',
  passkeyRename: 'Umbenennen',
  passkeyRenameLabel: '{name} umbenennen',
  passkeyNameField: 'Name des Passkeys',
  passkeySaveName: 'Namen speichern',
  passkeySavingName: 'Wird gespeichert …',
  passkeyRenamed: 'Der Passkey heißt jetzt {name}.',
  passkeyRemove: 'Entfernen',
  passkeyRemoveLabel: '{name} entfernen',
  passkeyRemoving: 'Wird entfernt …',
  passkeyRemoveConfirm: 'Geben Sie Ihr aktuelles Passwort ein, um {name} zu entfernen.',
  passkeyRemoveLast:
    'Er ist Ihr einziger zweiter Schritt: Die Anmeldung in zwei Schritten wird ausgeschaltet, und Ihre Wiederherstellungscodes werden gelöscht.',
  passkeyRemoved: '{name} wurde entfernt.',
  passkeyRemovedLast:
    '{name} wurde entfernt. Die Anmeldung in zwei Schritten ist ausgeschaltet, und Ihre Wiederherstellungscodes wurden gelöscht.',
  passkeyCancel: 'Abbrechen',
  passkeyAddTitle: 'Passkey hinzufügen',
  passkeyNeedsScripts:
    'Zum Hinzufügen eines Passkeys wird JavaScript benötigt: Die Passkey-Abfrage Ihres Browsers öffnet sich nur über ein Skript. Erlauben Sie Skripte für diese Website, um einen hinzuzufügen.',
  passkeyAddHelp:
    'Ihr Browser fragt dann, wo er gespeichert werden soll: auf diesem Gerät, in Ihrem Passwort-Manager oder auf einem Telefon oder Sicherheitsschlüssel.',
  passkeyAddName: 'Name (optional)',
  passkeyAddNameHelp: 'Zum Beispiel „Arbeitslaptop“. Ohne Namen wird der Passkey nach Ihrem Gerät benannt.',
  passkeyAdd: 'Passkey hinzufügen',
  passkeyAdding: 'Wird hinzugefügt …',
  passkeyAdded: 'Ihr Passkey {name} wurde hinzugefügt.',
  passkeyRecheck: 'Geben Sie zu Ihrer Sicherheit Ihr aktuelles Passwort ein, um einen Passkey hinzuzufügen.',
  passkeyAddCancelled:
    'Es wurde kein Passkey hinzugefügt: Die Anfrage wurde abgebrochen oder ist abgelaufen. Versuchen Sie es erneut, wenn Sie bereit sind.',
  passkeyAlreadyOnDevice: 'Auf diesem Gerät gibt es bereits einen Passkey für Ihr Konto.',
  passkeyAddUnsupported:
    'Dieser Browser kann keine Passkeys erstellen. Öffnen Sie diese Seite dazu in einem aktuellen Browser wie Chrome, Edge, Firefox oder Safari.',
};

const fr: Record<PasskeysKey, string> = {
  passkeysIntro:
    'Une clé d’accès vous connecte avec votre empreinte digitale, votre visage, le verrouillage de l’écran ou une clé de sécurité au lieu de votre mot de passe. Elle ne fonctionne que sur ce site et ne peut donc pas être hameçonnée. Dès que vous en avez une, une connexion avec votre mot de passe la demande aussi, comme deuxième étape.',
  passkeysNone: 'Vous n’avez pas encore de clé d’accès.',
  passkeySynced: 'Synchronisée',
  passkeySyncedHelp: 'Synchronisée entre vos appareils par votre gestionnaire de mots de passe ou votre plateforme',
  passkeyCreated: 'Ajoutée {time}',
  passkeyLastUsed: 'Utilisée pour la dernière fois {time}',
  passkeyNeverUsed: 'Pas encore utilisée',
  passkeyRename: 'Renommer',
  passkeyRenameLabel: 'Renommer {name}',
  passkeyNameField: 'Nom de la clé d’accès',
  passkeySaveName: 'Enregistrer le nom',
  passkeySavingName: 'Enregistrement…',
  passkeyRenamed: 'La clé d’accès s’appelle maintenant {name}.',
  passkeyRemove: 'Supprimer',
  passkeyRemoveLabel: 'Supprimer {name}',
  passkeyRemoving: 'Suppression…',
  passkeyRemoveConfirm: 'Saisissez votre mot de passe actuel pour supprimer {name}.',
  passkeyRemoveLast:
    'C’est votre seule deuxième étape\u00a0: la connexion en deux étapes sera désactivée et vos codes de récupération seront supprimés.',
  passkeyRemoved: '{name} a été supprimée.',
  passkeyRemovedLast:
    '{name} a été supprimée. La connexion en deux étapes est désactivée et vos codes de récupération ont été supprimés.',
  passkeyCancel: 'Annuler',
  passkeyAddTitle: 'Ajouter une clé d’accès',
  passkeyNeedsScripts:
    'Ajouter une clé d’accès nécessite JavaScript : la fenêtre de clé d’accès de votre navigateur ne s’ouvre que depuis un script. Autorisez les scripts sur ce site pour en ajouter une.',
  passkeyAddHelp:
    'Votre navigateur demande ensuite où la conserver\u00a0: sur cet appareil, dans votre gestionnaire de mots de passe, ou sur un téléphone ou une clé de sécurité.',
  passkeyAddName: 'Nom (facultatif)',
  passkeyAddNameHelp:
    'Par exemple «\u00a0Portable du bureau\u00a0». Sans nom, la clé d’accès porte le nom de votre appareil.',
  passkeyAdd: 'Ajouter une clé d’accès',
  passkeyAdding: 'Ajout…',
  passkeyAdded: 'Votre clé d’accès {name} a été ajoutée.',
  passkeyRecheck: 'Pour votre sécurité, saisissez votre mot de passe actuel pour ajouter une clé d’accès.',
  passkeyAddCancelled:
    'Aucune clé d’accès n’a été ajoutée\u00a0: la demande a été annulée ou a expiré. Réessayez quand vous serez prêt.',
  passkeyAlreadyOnDevice: 'Cet appareil a déjà une clé d’accès pour votre compte.',
  passkeyAddUnsupported:
    'Ce navigateur ne peut pas créer de clés d’accès. Pour en ajouter une, ouvrez cette page dans un navigateur récent comme Chrome, Edge, Firefox ou Safari.',
};

export const PASSKEYS_STRINGS: StringTables<PasskeysKey> = { en, de, fr };
const translatePasskeys = createTranslator(PASSKEYS_STRINGS);

/** The passkeys page's words in the page's language: `(key, params)`. */
export const usePasskeysText = () => useTranslator(translatePasskeys);
