import { LOCALES } from '@accounts/validators';
import { createTranslator, useTranslator, type StringTables } from '../i18n';
import { CODE_STRINGS } from '../i18n/code-strings';
import { DEVICE_STRINGS } from '../i18n/device-strings';
import { SECURITY_STRINGS } from '../i18n/security-strings';
import { HUB_STRINGS } from '../pages/account/strings';
import { ACTIVITY_STRINGS } from '../pages/activity/strings';
import { DATA_STRINGS } from '../pages/data/strings';
import { DELETE_STRINGS } from '../pages/delete/strings';
import { EMAIL_STRINGS } from '../pages/email/strings';
import { NAME_STRINGS } from '../pages/name/strings';
import { PASSKEYS_STRINGS } from '../pages/passkeys/strings';
import { SESSIONS_STRINGS } from '../pages/sessions/strings';
import { SECOND_STEP_STRINGS } from '../pages/sign-in/strings';
import { TWO_STEP_STRINGS } from '../pages/two-step/strings';

// The words of every security page (the sign-in's second step among them) and of the parts they
// share, as one table, for the tests that go through them all: each page has its own beside it.

const TABLES = [
  SECURITY_STRINGS,
  HUB_STRINGS,
  CODE_STRINGS,
  DEVICE_STRINGS,
  SECOND_STEP_STRINGS,
  SESSIONS_STRINGS,
  ACTIVITY_STRINGS,
  NAME_STRINGS,
  DELETE_STRINGS,
  EMAIL_STRINGS,
  DATA_STRINGS,
  TWO_STEP_STRINGS,
  PASSKEYS_STRINGS,
] as const;

type KeyOf<T> = T extends StringTables<infer K> ? K : never;
type SecurityPagesKey = KeyOf<(typeof TABLES)[number]>;

export const ALL_SECURITY_STRINGS = Object.fromEntries(
  LOCALES.map((locale) => [locale, Object.assign({}, ...TABLES.map((table) => table[locale]))]),
) as StringTables<SecurityPagesKey>;

export const translateAllSecurity = createTranslator(ALL_SECURITY_STRINGS);

export const useAllSecurityStrings = () => ({ s: useTranslator(translateAllSecurity) });
