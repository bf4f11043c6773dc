import { LOCALES } from '@accounts/validators';
import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import {
  createTranslator,
  LocaleProvider,
  translate,
  useI18n,
  useTranslator,
  type StringTables,
  type Translator,
} from './index';
import { MAIL_PAGE_STRINGS, translateMail, useMailText } from '../pages/mail/strings';
import { PROMPT_STRINGS } from './prompt-strings';
import {
  ALL_SECURITY_STRINGS as SECURITY_STRINGS,
  translateAllSecurity as translateSecurity,
  useAllSecurityStrings as useSecurityStrings,
} from '../test/security-strings';
import { uiTable } from './ui-strings';

// Every language of the interface (the test setup loads them all, as the server does).
const UI_STRINGS = { en: uiTable('en'), de: uiTable('de'), fr: uiTable('fr') };

// Every string table goes through the one translator: the same call, the same placeholders.

const TABLES: [string, StringTables<string>, Translator<string>][] = [
  ['interface', UI_STRINGS, translate as Translator<string>],
  ['mail pages', MAIL_PAGE_STRINGS, translateMail as Translator<string>],
  ['security pages', SECURITY_STRINGS, translateSecurity as Translator<string>],
  ['passkey prompts', PROMPT_STRINGS, createTranslator(PROMPT_STRINGS) as Translator<string>],
];

describe('the translator', () => {
  it('fills every placeholder of every table, in every language', () => {
    for (const [table, tables, t] of TABLES) {
      for (const locale of LOCALES) {
        for (const key of Object.keys(tables.en)) {
          const names = [...tables[locale][key]!.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
          const filled = t(locale, key, Object.fromEntries(names.map((name) => [name, '⟨value⟩'])));
          expect(filled, `${table} ${locale} ${key}`).not.toMatch(/\{\w+\}/);
          expect(filled.split('⟨value⟩').length - 1, `${table} ${locale} ${key}`).toBe(names.length);
        }
      }
    }
  });

  it('leaves a placeholder without a value empty, and says numbers as they are', () => {
    const t = createTranslator({
      en: { hello: 'Hello {name}, {count} new' },
      de: { hello: 'Hallo {name}' },
      fr: { hello: 'Bonjour {name}' },
    });
    expect(t('en', 'hello', { count: 3 })).toBe('Hello , 3 new');
    expect(t('de', 'hello', { name: 'Ada' })).toBe('Hallo Ada');
  });

  it("gives every table's words in the page's language through the same call", () => {
    const wrapper = ({ children }: { children: ReactNode }) => <LocaleProvider locale="de">{children}</LocaleProvider>;
    const { result } = renderHook(
      () => ({ t: useI18n().t, m: useMailText(), s: useSecurityStrings().s, own: useTranslator(translateMail) }),
      { wrapper },
    );
    expect(result.current.t('signOut')).toBe(UI_STRINGS.de.signOut);
    expect(result.current.m('resendDone', { email: 'ada@example.com' })).toBe(
      MAIL_PAGE_STRINGS.de.resendDone.replace('{email}', 'ada@example.com'),
    );
    expect(result.current.s('nameChanged', { name: 'Ada' })).toBe(
      SECURITY_STRINGS.de.nameChanged.replace('{name}', 'Ada'),
    );
    expect(result.current.own('resendDone', { email: 'x@example.com' })).toBe(
      result.current.m('resendDone', { email: 'x@example.com' }),
    );
  });
});
