import { UI_STRINGS, type UiKey } from './i18n/ui-strings';

/** Each page's heading, shown before anything else is known. */
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

/**
 * The words of the page frame (the header and each page's heading) in every language, written
 * by the build to dist/frame.json: the gateway puts the frame into index.html, so it is painted
 * with the first bytes, before the scripts arrive; the app then draws the same frame.
 */
export function frameWords() {
  return Object.fromEntries(
    Object.entries(UI_STRINGS).map(([locale, words]) => [
      locale,
      {
        realmLabel: words.realmLabel,
        skipToContent: words.skipToContent,
        mainNav: words.mainNav,
        titles: Object.fromEntries(Object.entries(PAGE_TITLES).map(([path, key]) => [path, words[key]])),
      },
    ]),
  );
}
