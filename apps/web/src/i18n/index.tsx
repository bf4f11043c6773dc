import { pickLocale, type Locale } from '@accounts/validators';
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { UI_STRINGS, type UiKey } from './ui-strings';

export type { UiKey };

/** The browser's language, chosen by the same rule the server applies to Accept-Language. */
export function browserLocale(): Locale {
  return pickLocale(typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language]);
}

export function translate(locale: Locale, key: UiKey, params: Record<string, string | number> = {}): string {
  return UI_STRINGS[locale][key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''));
}

export const LocaleContext = createContext<Locale>('en');

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

export function useI18n() {
  const locale = useContext(LocaleContext);
  return useMemo(
    () => ({ locale, t: (key: UiKey, params?: Record<string, string | number>) => translate(locale, key, params) }),
    [locale],
  );
}
