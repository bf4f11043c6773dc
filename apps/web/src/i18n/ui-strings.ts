// Words of the interface itself (labels, buttons, headings). Error texts for field and problem
// codes come from @accounts/validators, so they read the same as the server's. English comes with
// the app; German and French are chunks of their own that a browser loads only for its page's
// language (loadUiStrings), as the validators' messages do; the server has all (all-ui-strings.ts).

import type { Locale } from '@accounts/validators';
import { MAIL_EN } from './mail-strings';

const en = {
  ...MAIL_EN,
  appName: 'Accounts',
  realmLabel: 'Realm: ',
  skipToContent: 'Skip to content',
  mainNav: 'Main',
  navAccount: 'Account',
  navSignIn: 'Sign in',
  navRegister: 'Create account',
  signOut: 'Sign out',
  signingOut: 'Signing out…',
  loading: 'Loading…',

  registerTitle: 'Create your account',

  signInTitle: 'Sign in',
  signInIntro: 'Sign in to {realm}.',
  signInSubmit: 'Sign in',
  signInBusy: 'Signing in…',
  noAccount: 'New here?',
  signedOutToContinue: 'You were signed out. Sign in again to continue.',
  signedOutToChangePassword: 'You were signed out. Sign in again to change your password.',
  signInInstead: 'Sign in instead',

  accountTitle: 'Your account',
  accountName: 'Name',
  accountEmail: 'Email address',
  accountRealm: 'Realm',
  changePasswordLink: 'Change your password',

  settingsTitle: 'Change password',
  passwordChanged: 'Your password has been changed. You are still signed in on this device.',
  revokedNone: 'No other devices were signed in.',
  revokedOne: '1 other device was signed out.',
  revokedMany: '{count} other devices were signed out.',

  fieldName: 'Name',
  fieldEmail: 'Email address',
  fieldPassword: 'Password',
  fieldCurrentPassword: 'Current password',
  emptyName: 'Enter your name.',
  emptyPasskeyName: 'Enter a name for the passkey.',
  emptyEmail: 'Enter your email address.',
  emptyNewEmail: 'Enter the new email address.',
  emptyPassword: 'Enter your password.',
  emptyNewPassword: 'Enter a password.',
  emptyPasswordConfirm: 'Confirm your password.',
  emptyCurrentPassword: 'Enter your current password.',
  emptyNewPasswordSettings: 'Enter a new password.',
  emptyNewPasswordConfirm: 'Confirm your new password.',
  showPassword: 'Show',
  hidePassword: 'Hide',
  showPasswordLabel: 'Show {label}',
  hidePasswordLabel: 'Hide {label}',

  labelledError: '{label}: {message}',
  summaryTitle: 'Please correct the following:',
  unreachable: 'The service could not be reached. Check your internet connection, then try again.',
  serverTrouble: 'The service is having a problem on its side. Please try again in a few minutes.',
  tryAgainLater: 'Please try again later.',
  loadFailedTitle: 'This page could not be loaded',
  retry: 'Try again',
  crashTitle: 'Something went wrong',
  crashBody: 'This page stopped working. Reloading usually helps; your account is not affected.',
  reload: 'Reload page',
  notFoundTitle: 'Page not found',
  notFoundBody: 'There is no page at this address.',
  goHome: 'Go to the start page',
  // The security page
  accountSecurity: 'Security and privacy',
  seeSessions: "See where you're signed in",
  sessionsTitle: "Where you're signed in",
  appsTitle: 'Apps with access',
  activityTitle: 'Recent activity',
  nameTitle: 'Change your name',
  emailTitle: 'Email address',
  dataTitle: 'Download your data',
  deleteTitle: 'Delete your account',
  twoStepTitle: 'Two-step sign-in',
  twoStepStateOn: 'On',
  twoStepStateOff: 'Off',
  emptyCode: 'Enter the 6-digit code from your authenticator app.',
  emptyRecoveryCode: 'Enter one of your recovery codes.',
  emptySecondStepCode: 'Enter a code from your authenticator app, or a recovery code.',
  // Passkeys: the sign-in page's button (what a prompt can end with is in prompt-strings.ts)
  passkeysTitle: 'Passkeys',
  passkeySignIn: 'Sign in with a passkey',
  passkeyWaiting: 'Waiting for your passkey…',
  // Other providers: the sign-in and register pages, the connected accounts
  continueWith: 'Continue with {provider}',
  connectionsTitle: 'Connected accounts',
} as const;

export type UiKey = keyof typeof en;

/** One language's words of the interface. */
export type UiTable = Readonly<Record<UiKey, string>>;

const TABLES: Partial<Record<Locale, UiTable>> = { en };
const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<{ strings: UiTable }>> = {
  de: () => import('./ui-strings-de'),
  fr: () => import('./ui-strings-fr'),
};

/** Makes a language's words available to the translator. */
export function addUiStrings(locale: Locale, table: UiTable): void {
  TABLES[locale] = table;
}

/** Loads a language's words (once); until then the interface speaks English. */
export async function loadUiStrings(locale: Locale): Promise<void> {
  if (TABLES[locale] || locale === 'en') return;
  addUiStrings(locale, (await LOADERS[locale]()).strings);
}

/** A language's words, English where it has not been loaded. */
export const uiTable = (locale: Locale): UiTable => TABLES[locale] ?? en;
