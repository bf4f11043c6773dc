// The words of the page that downloads one's data, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  dataIntro:
    'Download a copy of everything this service holds about your account, as a JSON file you can read or take to another service. It contains:',
  dataWhatAccount: 'your account: name, email address and whether it is confirmed, realm, when it was created;',
  dataWhatSessions: 'the devices signed in now: each one’s browser, address, when it signed in and was last used;',
  dataWhatDevices: 'the devices that signed in before;',
  dataWhatActivity: 'your account’s activity, with addresses and times;',
  dataWhatMails: 'the mails about your account: their kind, when they were sent and whether they left;',
  dataWhatFactors:
    'your second factors: the authenticator app and passkeys, when added and last used, how many recovery codes are left.',
  dataNoSecrets:
    'It never contains a password, a code or a key: not your password, not your recovery codes, not the links we mailed you.',
  dataKeepSafe: 'Keep the file safe: it shows where and when you signed in.',
  dataSubmit: 'Download your data',
  dataBusy: 'Preparing your data…',
  dataRecheck: 'For your security, enter your current password to download your data.',
  dataDone: 'Your data was downloaded as {file}.',
} as const;

export type DataKey = keyof typeof en;

const de: Record<DataKey, string> = {
  dataIntro:
    'Laden Sie eine Kopie von allem herunter, was dieser Dienst über Ihr Konto speichert, als JSON-Datei, die Sie lesen oder zu einem anderen Dienst mitnehmen können. Sie enthält:',
  dataWhatAccount: 'Ihr Konto: Name, E-Mail-Adresse und ob sie bestätigt ist, Bereich, wann es erstellt wurde;',
  dataWhatSessions:
    'die jetzt angemeldeten Geräte: jeweils Browser, Adresse, wann es sich angemeldet hat und zuletzt aktiv war;',
  dataWhatDevices: 'die Geräte, die sich früher angemeldet haben;',
  dataWhatActivity: 'die Aktivität Ihres Kontos, mit Adressen und Zeiten;',
  dataWhatMails: 'die E-Mails zu Ihrem Konto: ihre Art, wann sie gesendet wurden und ob sie verschickt wurden;',
  dataWhatFactors:
    'Ihre zweiten Faktoren: Authenticator-App und Passkeys, wann hinzugefügt und zuletzt benutzt, wie viele Wiederherstellungscodes übrig sind.',
  dataNoSecrets:
    'Sie enthält nie ein Passwort, einen Code oder einen Schlüssel: weder Ihr Passwort noch Ihre Wiederherstellungscodes noch die Links, die wir Ihnen gesendet haben.',
  dataKeepSafe: 'Bewahren Sie die Datei sicher auf: Sie zeigt, wo und wann Sie sich angemeldet haben.',
  dataSubmit: 'Ihre Daten herunterladen',
  dataBusy: 'Ihre Daten werden vorbereitet…',
  dataRecheck: 'Geben Sie zu Ihrer Sicherheit Ihr aktuelles Passwort ein, um Ihre Daten herunterzuladen.',
  dataDone: 'Ihre Daten wurden als {file} heruntergeladen.',
};

const fr: Record<DataKey, string> = {
  dataIntro:
    'Téléchargez une copie de tout ce que ce service conserve sur votre compte, dans un fichier JSON que vous pouvez lire ou emporter vers un autre service. Il contient\u00a0:',
  dataWhatAccount: 'votre compte\u00a0: nom, adresse e-mail et si elle est confirmée, domaine, date de création ;',
  dataWhatSessions:
    'les appareils connectés maintenant\u00a0: le navigateur et l’adresse de chacun, quand il s’est connecté et a été utilisé pour la dernière fois ;',
  dataWhatDevices: 'les appareils qui se sont connectés auparavant ;',
  dataWhatActivity: 'l’activité de votre compte, avec les adresses et les heures ;',
  dataWhatMails:
    'les e-mails concernant votre compte\u00a0: leur type, quand ils ont été envoyés et s’ils sont partis ;',
  dataWhatFactors:
    'vos seconds facteurs\u00a0: l’application d’authentification et les clés d’accès, quand ils ont été ajoutés et utilisés pour la dernière fois, combien de codes de récupération il reste.',
  dataNoSecrets:
    'Il ne contient jamais de mot de passe, de code ni de clé\u00a0: ni votre mot de passe, ni vos codes de récupération, ni les liens que nous vous avons envoyés.',
  dataKeepSafe: 'Conservez le fichier en lieu sûr\u00a0: il montre où et quand vous vous êtes connecté.',
  dataSubmit: 'Télécharger vos données',
  dataBusy: 'Préparation de vos données…',
  dataRecheck: 'Pour votre sécurité, saisissez votre mot de passe actuel pour télécharger vos données.',
  dataDone: 'Vos données ont été téléchargées sous le nom {file}.',
};

export const DATA_STRINGS: StringTables<DataKey> = { en, de, fr };
const translateData = createTranslator(DATA_STRINGS);

/** The data page's words in the page's language: `(key, params)`. */
export const useDataText = () => useTranslator(translateData);
