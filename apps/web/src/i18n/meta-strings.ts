// The page's description for search engines and link previews: written into the document by the
// server render (entry-server.tsx) only, so no page script carries it.
import { createTranslator } from './index';

const META_EN = {
  description:
    '{product}: create your account in {realm}, sign in, and manage your password, devices and two-step sign-in.',
  /** For the default realm before it is named: it is the service itself. */
  descriptionUnnamed:
    '{product}: create your account, sign in, and manage your password, devices and two-step sign-in.',
};
type MetaKey = keyof typeof META_EN;

export const translateMeta = createTranslator<MetaKey>({
  en: META_EN,
  de: {
    description:
      '{product}: Erstellen Sie Ihr Konto bei {realm}, melden Sie sich an und verwalten Sie Passwort, Geräte und Anmeldung in zwei Schritten.',
    descriptionUnnamed:
      '{product}: Erstellen Sie Ihr Konto, melden Sie sich an und verwalten Sie Passwort, Geräte und Anmeldung in zwei Schritten.',
  },
  fr: {
    description:
      '{product} : créez votre compte chez {realm}, connectez-vous et gérez votre mot de passe, vos appareils et la connexion en deux étapes.',
    descriptionUnnamed:
      '{product} : créez votre compte, connectez-vous et gérez votre mot de passe, vos appareils et la connexion en deux étapes.',
  },
});
