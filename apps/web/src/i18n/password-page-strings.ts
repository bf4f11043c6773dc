// Words of the pages where a new password is typed (registration, the password change, the
// reset) and of their strength meter, loaded with them: the sign-in page's script does not carry them.
import { createTranslator, useTranslator } from './index';

const PASSWORD_PAGE_EN = {
  fieldPasswordConfirm: 'Confirm password',
  fieldNewPassword: 'New password',
  fieldNewPasswordConfirm: 'Confirm new password',
  registerIntro: 'Create an account in {realm}.',
  registerConfirmFirst:
    'Your account is created. We have sent a link to {email}: open it to confirm your address, then sign in.',
  registerSubmit: 'Create account',
  registerBusy: 'Creating account…',
  haveAccount: 'Already have an account?',
  settingsIntro: 'After the change you stay signed in here; every other device is signed out.',
  settingsSubmit: 'Change password',
  settingsBusy: 'Changing password…',
  strengthLabel: 'Strength: {level}',
  strengthEmpty: 'Strength: not entered yet',
  strengthPending: 'Strength: checking…',
  strength0: 'too weak',
  strength1: 'too weak',
  strength2: 'good',
  strength3: 'strong',
  strength4: 'very strong',
  checkLength: 'At least {min} characters',
  checkNotCommon: 'Not easy to guess: no common password, repeat, sequence or keyboard row',
  checkNotSimilar: 'Still hard to guess without your name, email address or this site',
  checkMet: 'met',
  checkNotMet: 'not met',
} as const;

export type PasswordPageKey = keyof typeof PASSWORD_PAGE_EN;

const PASSWORD_PAGE_DE: Record<PasswordPageKey, string> = {
  fieldPasswordConfirm: 'Passwort bestätigen',
  fieldNewPassword: 'Neues Passwort',
  fieldNewPasswordConfirm: 'Neues Passwort bestätigen',
  registerIntro: 'Erstellen Sie ein Konto in {realm}.',
  registerConfirmFirst:
    'Ihr Konto ist erstellt. Wir haben einen Link an {email} gesendet: Öffnen Sie ihn, um Ihre Adresse zu bestätigen, und melden Sie sich dann an.',
  registerSubmit: 'Konto erstellen',
  registerBusy: 'Konto wird erstellt…',
  haveAccount: 'Sie haben bereits ein Konto?',
  settingsIntro: 'Nach der Änderung bleiben Sie hier angemeldet; alle anderen Geräte werden abgemeldet.',
  settingsSubmit: 'Passwort ändern',
  settingsBusy: 'Passwort wird geändert…',
  strengthLabel: 'Stärke: {level}',
  strengthEmpty: 'Stärke: noch nichts eingegeben',
  strengthPending: 'Stärke: wird geprüft …',
  strength0: 'zu schwach',
  strength1: 'zu schwach',
  strength2: 'gut',
  strength3: 'stark',
  strength4: 'sehr stark',
  checkLength: 'Mindestens {min} Zeichen',
  checkNotCommon: 'Nicht leicht zu erraten: kein verbreitetes Passwort, keine Wiederholung, Folge oder Tastaturreihe',
  checkNotSimilar: 'Auch ohne Ihren Namen, Ihre E-Mail-Adresse oder diese Website schwer zu erraten',
  checkMet: 'erfüllt',
  checkNotMet: 'nicht erfüllt',
};

const PASSWORD_PAGE_FR: Record<PasswordPageKey, string> = {
  fieldPasswordConfirm: 'Confirmer le mot de passe',
  fieldNewPassword: 'Nouveau mot de passe',
  fieldNewPasswordConfirm: 'Confirmer le nouveau mot de passe',
  registerIntro: 'Créez un compte dans {realm}.',
  registerConfirmFirst:
    'Votre compte est créé. Nous avons envoyé un lien à {email}\u00a0: ouvrez-le pour confirmer votre adresse, puis connectez-vous.',
  registerSubmit: 'Créer le compte',
  registerBusy: 'Création du compte…',
  haveAccount: 'Vous avez déjà un compte ?',
  settingsIntro: 'Après le changement, vous restez connecté ici ; tous les autres appareils sont déconnectés.',
  settingsSubmit: 'Changer le mot de passe',
  settingsBusy: 'Changement en cours…',
  strengthLabel: 'Robustesse : {level}',
  strengthEmpty: 'Robustesse : rien de saisi',
  strengthPending: 'Robustesse : vérification…',
  strength0: 'trop faible',
  strength1: 'trop faible',
  strength2: 'correcte',
  strength3: 'forte',
  strength4: 'très forte',
  checkLength: 'Au moins {min} caractères',
  checkNotCommon: 'Pas facile à deviner\u00a0: ni mot de passe courant, ni répétition, suite ou rangée du clavier',
  checkNotSimilar: 'Difficile à deviner même sans votre nom, votre adresse e-mail ou ce site',
  checkMet: 'respecté',
  checkNotMet: 'non respecté',
};

const translatePasswordPage = createTranslator<PasswordPageKey>({
  en: PASSWORD_PAGE_EN,
  de: PASSWORD_PAGE_DE,
  fr: PASSWORD_PAGE_FR,
});

/** These pages' words in the page's language: `p(key, params)`, beside the shared `t`. */
export const usePasswordPageText = () => useTranslator(translatePasswordPage);
