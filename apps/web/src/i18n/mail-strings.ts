// The words of the mail flows the sign-in page needs; the rest is in pages/mail/strings.ts.
// Spread into the tables of ui-strings.ts.

export const MAIL_EN = {
  forgotLink: 'Forgot your password?',
  passwordResetSignIn: 'Your password has been reset and every device was signed out. Sign in with your new password.',
} as const;
export const MAIL_DE: Record<keyof typeof MAIL_EN, string> = {
  forgotLink: 'Passwort vergessen?',
  passwordResetSignIn:
    'Ihr Passwort wurde zurückgesetzt, und alle Geräte wurden abgemeldet. Melden Sie sich mit Ihrem neuen Passwort an.',
};
export const MAIL_FR: Record<keyof typeof MAIL_EN, string> = {
  forgotLink: 'Mot de passe oublié ?',
  passwordResetSignIn:
    'Votre mot de passe a été réinitialisé et tous les appareils ont été déconnectés. Connectez-vous avec votre nouveau mot de passe.',
};
