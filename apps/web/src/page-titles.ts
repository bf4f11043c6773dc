import type { UiKey } from './i18n/ui-strings';

/** Each page's heading, shown while the page's code or the realm's settings load. */
export const PAGE_TITLES: Record<string, UiKey> = {
  '/register': 'registerTitle',
  '/login': 'signInTitle',
  '/account': 'accountTitle',
  '/settings': 'settingsTitle',
  '/settings/sessions': 'sessionsTitle',
  '/settings/activity': 'activityTitle',
  '/settings/name': 'nameTitle',
  '/settings/delete': 'deleteTitle',
};
