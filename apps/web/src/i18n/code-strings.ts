// The labels of the code fields (the app's code, a recovery code, or either), shared by the
// sign-in's second step and the settings that ask for a code: loaded with the code field.
import { createTranslator, useTranslator, type StringTables } from './index';

const en = {
  fieldCode: '6-digit code',
  fieldRecoveryCode: 'Recovery code',
  fieldAnyCode: 'Code from your app, or a recovery code',
} as const;

export type CodeKey = keyof typeof en;

const de: Record<CodeKey, string> = {
  fieldCode: '6-stelliger Code',
  fieldRecoveryCode: 'Wiederherstellungscode',
  fieldAnyCode: 'Code aus Ihrer App oder Wiederherstellungscode',
};

const fr: Record<CodeKey, string> = {
  fieldCode: 'Code à 6 chiffres',
  fieldRecoveryCode: 'Code de récupération',
  fieldAnyCode: 'Code de votre application, ou code de récupération',
};

export const CODE_STRINGS: StringTables<CodeKey> = { en, de, fr };
const translateCode = createTranslator(CODE_STRINGS);

/** The code fields' labels in the page's language: `(key, params)`. */
export const useCodeText = () => useTranslator(translateCode);
