// The one word of the mail flows the sign-in page needs; the rest is in mail-page-strings.ts.
// Spread into the tables of ui-strings.ts.

export const MAIL_EN = { forgotLink: 'Forgot your password?' } as const;
export const MAIL_DE: Record<keyof typeof MAIL_EN, string> = { forgotLink: 'Passwort vergessen?' };
export const MAIL_FR: Record<keyof typeof MAIL_EN, string> = { forgotLink: 'Mot de passe oublié ?' };
