// The account hub's words (its sections and the state of each row), loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  hubNav: 'Your account',
  hubProfile: 'Profile',
  hubSecurity: 'Sign-in & security',
  hubData: 'Your data',
  hubPasswordState: 'Used to sign in, with your email address',
  hubTwoStepOnWith: 'with {methods}',
  hubMethodTotp: 'an authenticator app',
  hubMethodPasskey: 'a passkey',
  hubMethodsBoth: '{first} and {second}',
  hubCodesLeft: '{count} recovery codes left',
  hubCodesOneLeft: '1 recovery code left',
  hubCodesNone: 'no recovery codes left',
  hubCodesFewBanner: 'Only {count} recovery codes are left: make new ones before you run out.',
  hubCodesOneBanner: 'Only 1 recovery code is left: make new ones before you run out.',
  hubCodesNoneBanner:
    'No recovery codes are left: make new ones, so that you can still sign in without your app or passkey.',
  hubCodesRenew: 'Get new recovery codes',
  hubTwoStepOffState: 'Only your password is asked',
  hubPasskeysNone: 'None yet',
  hubPasskeysOne: '1 passkey',
  hubPasskeysMany: '{count} passkeys',
  hubSessionsState: 'Devices and browsers signed in to your account',
  hubActivityState: 'Sign-ins, changes and refused attempts',
  hubConnectionsState: 'Other accounts you sign in with',
  hubAppsState: 'Apps you signed in to with this account',
  hubDownloadState: 'Everything held about you, as one file',
  hubDeleteState: 'Removes the account and everything in it',
} as const;

export type HubKey = keyof typeof en;

const de: Record<HubKey, string> = {
  hubNav: 'Ihr Konto',
  hubProfile: 'Profil',
  hubSecurity: 'Anmeldung und Sicherheit',
  hubData: 'Ihre Daten',
  hubPasswordState: 'Zur Anmeldung mit Ihrer E-Mail-Adresse',
  hubTwoStepOnWith: 'mit {methods}',
  hubMethodTotp: 'einer Authenticator-App',
  hubMethodPasskey: 'einem Passkey',
  hubMethodsBoth: '{first} und {second}',
  hubCodesLeft: 'noch {count} Wiederherstellungscodes',
  hubCodesOneLeft: 'noch 1 Wiederherstellungscode',
  hubCodesNone: 'keine Wiederherstellungscodes mehr',
  hubCodesFewBanner: 'Nur noch {count} Wiederherstellungscodes: Erstellen Sie neue, bevor sie ausgehen.',
  hubCodesOneBanner: 'Nur noch 1 Wiederherstellungscode: Erstellen Sie neue, bevor er ausgeht.',
  hubCodesNoneBanner:
    'Keine Wiederherstellungscodes mehr: Erstellen Sie neue, damit Sie sich auch ohne App oder Passkey anmelden können.',
  hubCodesRenew: 'Neue Wiederherstellungscodes erstellen',
  hubTwoStepOffState: 'Nur Ihr Passwort wird abgefragt',
  hubPasskeysNone: 'Noch keine',
  hubPasskeysOne: '1 Passkey',
  hubPasskeysMany: '{count} Passkeys',
  hubSessionsState: 'Geräte und Browser, die bei Ihrem Konto angemeldet sind',
  hubActivityState: 'Anmeldungen, Änderungen und abgewiesene Versuche',
  hubConnectionsState: 'Andere Konten, mit denen Sie sich anmelden',
  hubAppsState: 'Apps, bei denen Sie sich mit diesem Konto angemeldet haben',
  hubDownloadState: 'Alles, was über Sie gespeichert ist, als eine Datei',
  hubDeleteState: 'Entfernt das Konto und alles darin',
};

const fr: Record<HubKey, string> = {
  hubNav: 'Votre compte',
  hubProfile: 'Profil',
  hubSecurity: 'Connexion et sécurité',
  hubData: 'Vos données',
  hubPasswordState: 'Pour vous connecter, avec votre adresse e-mail',
  hubTwoStepOnWith: 'avec {methods}',
  hubMethodTotp: 'une application d’authentification',
  hubMethodPasskey: 'une clé d’accès',
  hubMethodsBoth: '{first} et {second}',
  hubCodesLeft: '{count} codes de récupération restants',
  hubCodesOneLeft: '1 code de récupération restant',
  hubCodesNone: 'plus aucun code de récupération',
  hubCodesFewBanner: 'Il ne reste que {count} codes de récupération : créez-en de nouveaux avant d’en manquer.',
  hubCodesOneBanner: 'Il ne reste qu’un code de récupération : créez-en de nouveaux avant d’en manquer.',
  hubCodesNoneBanner:
    'Il ne reste aucun code de récupération : créez-en de nouveaux pour pouvoir vous connecter sans votre application ni votre clé d’accès.',
  hubCodesRenew: 'Obtenir de nouveaux codes de récupération',
  hubTwoStepOffState: 'Seul votre mot de passe est demandé',
  hubPasskeysNone: 'Aucune pour l’instant',
  hubPasskeysOne: '1 clé d’accès',
  hubPasskeysMany: '{count} clés d’accès',
  hubSessionsState: 'Appareils et navigateurs connectés à votre compte',
  hubActivityState: 'Connexions, modifications et tentatives refusées',
  hubConnectionsState: 'Autres comptes avec lesquels vous vous connectez',
  hubAppsState: 'Applications auxquelles vous vous êtes connecté avec ce compte',
  hubDownloadState: 'Tout ce qui est conservé à votre sujet, en un fichier',
  hubDeleteState: 'Supprime le compte et tout son contenu',
};

export const HUB_STRINGS: StringTables<HubKey> = { en, de, fr };
const translateHub = createTranslator(HUB_STRINGS);

/** The hub's words in the page's language: `(key, params)`. */
export const useHubText = () => useTranslator(translateHub);
