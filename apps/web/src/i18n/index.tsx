import { fillTemplate, pickLocale, type Locale } from '@accounts/validators';
import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { uiTable, type UiKey } from './ui-strings';

export type { UiKey };

/** The browser's language, chosen by the same rule the server applies to Accept-Language. */
export function browserLocale(): Locale {
  return pickLocale(typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]));
}

/** Values for a text's `{name}` placeholders. */
export type TextParams = Record<string, string | number>;

/** A string table: the same keys in every language. */
export type StringTables<K extends string> = Readonly<Record<Locale, Readonly<Record<K, string>>>>;

export type Translator<K extends string> = (locale: Locale, key: K, params?: TextParams) => string;

/** The one translator, for every string table: a key's text in a language, its placeholders filled in. */
export function createTranslator<K extends string>(tables: StringTables<K>): Translator<K> {
  return (locale, key, params) => fillTemplate(tables[locale][key], params);
}

/** The interface's words, for code outside components (failures, the error boundary). */
export const translate: Translator<UiKey> = (locale, key, params) => fillTemplate(uiTable(locale)[key], params);

export const LocaleContext = createContext<Locale>('en');

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

/** A table's translator in the page's language: `(key, params)`, the call shape of every table. */
export function useTranslator<K extends string>(translator: Translator<K>) {
  const locale = useContext(LocaleContext);
  return useCallback((key: K, params?: TextParams) => translator(locale, key, params), [translator, locale]);
}

export function useI18n() {
  const locale = useContext(LocaleContext);
  const t = useTranslator(translate);
  return useMemo(() => ({ locale, t }), [locale, t]);
}
