// The words of the page of signed-in devices, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  sessionsIntro:
    'These devices are signed in to your account. If you do not recognise one, sign it out and change your password.',
  sessionsThisDevice: 'This device',
  sessionsSignedIn: 'Signed in {time}',
  sessionsLastUsed: 'Last active {time}',
  sessionsRevoke: 'Sign out',
  sessionsRevokeLabel: 'Sign out {device}',
  sessionsRevoking: 'Signing out…',
  sessionsRevokeOthers: 'Sign out everywhere else',
  sessionsRevokedOne: 'That device was signed out.',
  sessionsConfirmOne: 'Enter your current password to sign out {device}.',
  sessionsConfirmOthers: 'Enter your current password to sign out every other device.',
  sessionsCancel: 'Cancel',
  sessionsOnlyThis: 'You are signed in on this device only.',
} as const;

export type SessionsKey = keyof typeof en;

const de: Record<SessionsKey, string> = {
  sessionsIntro:
    'Diese Geräte sind bei Ihrem Konto angemeldet. Wenn Sie eines nicht kennen, melden Sie es ab und ändern Sie Ihr Passwort.',
  sessionsThisDevice: 'Dieses Gerät',
  sessionsSignedIn: 'Angemeldet {time}',
  sessionsLastUsed: 'Zuletzt aktiv {time}',
  sessionsRevoke: 'Abmelden',
  sessionsRevokeLabel: '{device} abmelden',
  sessionsRevoking: 'Wird abgemeldet …',
  sessionsRevokeOthers: 'Überall sonst abmelden',
  sessionsRevokedOne: 'Das Gerät wurde abgemeldet.',
  sessionsConfirmOne: 'Geben Sie Ihr aktuelles Passwort ein, um {device} abzumelden.',
  sessionsConfirmOthers: 'Geben Sie Ihr aktuelles Passwort ein, um alle anderen Geräte abzumelden.',
  sessionsCancel: 'Abbrechen',
  sessionsOnlyThis: 'Sie sind nur auf diesem Gerät angemeldet.',
};

const fr: Record<SessionsKey, string> = {
  sessionsIntro:
    'Ces appareils sont connectés à votre compte. Si vous n’en reconnaissez pas un, déconnectez-le et changez votre mot de passe.',
  sessionsThisDevice: 'Cet appareil',
  sessionsSignedIn: 'Connecté {time}',
  sessionsLastUsed: 'Dernière activité {time}',
  sessionsRevoke: 'Déconnecter',
  sessionsRevokeLabel: 'Déconnecter {device}',
  sessionsRevoking: 'Déconnexion…',
  sessionsRevokeOthers: 'Se déconnecter partout ailleurs',
  sessionsRevokedOne: 'Cet appareil a été déconnecté.',
  sessionsConfirmOne: 'Saisissez votre mot de passe actuel pour déconnecter {device}.',
  sessionsConfirmOthers: 'Saisissez votre mot de passe actuel pour déconnecter tous les autres appareils.',
  sessionsCancel: 'Annuler',
  sessionsOnlyThis: 'Vous n’êtes connecté que sur cet appareil.',
};

export const SESSIONS_STRINGS: StringTables<SessionsKey> = { en, de, fr };
const translateSessions = createTranslator(SESSIONS_STRINGS);

/** The devices page's words in the page's language: `(key, params)`. */
export const useSessionsText = () => useTranslator(translateSessions);
