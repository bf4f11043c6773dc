// The words of the page of apps with access, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  appsIntro:
    'These apps can sign you in with this account and see what you allowed. Removing an app’s access signs you out of it; it has to ask again next time.',
  appsNone: 'No app has access to your account.',
  appsMaySee: 'It may see:',
  scope_openid: 'that it is you',
  scope_profile: 'your name and language',
  scope_email: 'your email address',
  scope_offline_access: 'stay signed in',
  appsFirstParty: 'Part of this service',
  appsLastUsed: 'Last used {time}',
  appsGranted: 'Access given {time}',
  appsRemove: 'Remove access',
  appsRemoveLabel: 'Remove the access of {app}',
  appsRemoving: 'Removing…',
  appsRemoved: '{app} no longer has access to your account.',
} as const;

export type AppsKey = keyof typeof en;

const de: Record<AppsKey, string> = {
  appsIntro:
    'Diese Apps können Sie mit diesem Konto anmelden und sehen, was Sie erlaubt haben. Wenn Sie einer App den Zugriff entziehen, werden Sie dort abgemeldet; beim nächsten Mal muss sie erneut fragen.',
  appsNone: 'Keine App hat Zugriff auf Ihr Konto.',
  appsMaySee: 'Sie darf sehen:',
  scope_openid: 'dass Sie es sind',
  scope_profile: 'Ihren Namen und Ihre Sprache',
  scope_email: 'Ihre E-Mail-Adresse',
  scope_offline_access: 'angemeldet bleiben',
  appsFirstParty: 'Teil dieses Dienstes',
  appsLastUsed: 'Zuletzt verwendet {time}',
  appsGranted: 'Zugriff erteilt {time}',
  appsRemove: 'Zugriff entziehen',
  appsRemoveLabel: 'Zugriff von {app} entziehen',
  appsRemoving: 'Wird entzogen …',
  appsRemoved: '{app} hat keinen Zugriff mehr auf Ihr Konto.',
};

const fr: Record<AppsKey, string> = {
  appsIntro:
    'Ces applications peuvent vous connecter avec ce compte et voir ce que vous avez permis. Retirer l’accès d’une application vous en déconnecte\u00a0; elle devra le demander de nouveau.',
  appsNone: 'Aucune application n’a accès à votre compte.',
  appsMaySee: 'Elle peut voir\u00a0:',
  scope_openid: 'que c’est vous',
  scope_profile: 'votre nom et votre langue',
  scope_email: 'votre adresse e-mail',
  scope_offline_access: 'rester connecté',
  appsFirstParty: 'Fait partie de ce service',
  appsLastUsed: 'Dernière utilisation {time}',
  appsGranted: 'Accès donné {time}',
  appsRemove: 'Retirer l’accès',
  appsRemoveLabel: 'Retirer l’accès de {app}',
  appsRemoving: 'Retrait…',
  appsRemoved: '{app} n’a plus accès à votre compte.',
};

export const APPS_STRINGS: StringTables<AppsKey> = { en, de, fr };
const translateApps = createTranslator(APPS_STRINGS);

/** The apps page's words in the page's language: `(key, params)`. */
export const useAppsText = () => useTranslator(translateApps);
