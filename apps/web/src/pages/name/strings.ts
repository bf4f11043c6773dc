// The name page's words, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  nameIntro: 'This is the name shown on your account.',
  nameSubmit: 'Save name',
  nameBusy: 'Saving…',
  nameChanged: 'Your name has been changed to {name}.',
} as const;

export type NameKey = keyof typeof en;

const de: Record<NameKey, string> = {
  nameIntro: 'Dieser Name wird in Ihrem Konto angezeigt.',
  nameSubmit: 'Namen speichern',
  nameBusy: 'Wird gespeichert …',
  nameChanged: 'Ihr Name wurde in {name} geändert.',
};

const fr: Record<NameKey, string> = {
  nameIntro: 'C’est le nom affiché sur votre compte.',
  nameSubmit: 'Enregistrer le nom',
  nameBusy: 'Enregistrement…',
  nameChanged: 'Votre nom a été remplacé par {name}.',
};

export const NAME_STRINGS: StringTables<NameKey> = { en, de, fr };
const translateName = createTranslator(NAME_STRINGS);

/** The name page's words in the page's language: `(key, params)`. */
export const useNameText = () => useTranslator(translateName);
