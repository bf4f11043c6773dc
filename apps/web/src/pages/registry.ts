import type { AppRouter } from '@accounts/api';
import type { createTRPCQueryUtils } from '@trpc/react-query';
import { lazy, type ComponentType } from 'react';
import type { UiKey } from '../i18n';
import type { FormOutcome } from '../page-data';
import { AccountPage } from './AccountPage';
import { HomePage } from './HomePage';
import { NotFoundPage } from './NotFoundPage';
import { SignInPage } from './SignInPage';

// Every page of the app, once: the app's switch, the heading shown while a page loads, the
// server's render and the tests that go through every page all read this list.

/** The app's queries as the server asks them for a page it renders (the same keys the hooks use). */
export type PrefetchUtils = ReturnType<typeof createTRPCQueryUtils<AppRouter>>;

export interface PageEntry {
  path: string;
  /** The heading shown while the page's code or the realm's settings load. */
  title?: UiKey;
  component: ComponentType;
  /** Opened from a mailed link, whose address carries `?token=`. */
  linkToken?: true;
  /**
   * The page's queries besides the session and the realm, asked by the server before it renders
   * the page, so the page arrives whole (and works without scripts).
   */
  prefetch?: (utils: PrefetchUtils, search: URLSearchParams, form?: FormOutcome) => Promise<unknown>;
}

/** A mailed link's token, as the pages behind mailed links read it. */
const tokenOf = (search: URLSearchParams) => search.get('token') ?? '';

/** A page whose code loads when it is first shown, as a chunk of its own (or a shared one). */
const lazyPage = <K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));

// The pages behind mailed links share one chunk.
const mailPage = (name: 'ForgotPasswordPage' | 'ResetPasswordPage' | 'VerifyEmailPage' | 'ConfirmEmailChangePage') =>
  lazyPage(() => import('./MailPages'), name);

export const PAGE_REGISTRY: readonly PageEntry[] = [
  { path: '/', component: HomePage },
  { path: '/login', title: 'signInTitle', component: SignInPage },
  // The pages where a new password is typed carry the password rule and its data: they load on
  // their own, so the sign-in page (most visits) does not download them.
  { path: '/register', title: 'registerTitle', component: lazyPage(() => import('./RegisterPage'), 'RegisterPage') },
  { path: '/account', title: 'accountTitle', component: AccountPage },
  {
    path: '/settings',
    title: 'settingsTitle',
    component: lazyPage(() => import('./SettingsPage'), 'SettingsPage'),
    prefetch: (utils) => utils.passkeys.list.prefetch(),
  },
  {
    path: '/settings/email',
    title: 'emailTitle',
    component: lazyPage(() => import('./ChangeEmailPage'), 'ChangeEmailPage'),
    prefetch: (utils) => utils.emailChange.pending.prefetch(),
  },
  {
    path: '/settings/sessions',
    title: 'sessionsTitle',
    component: lazyPage(() => import('./SessionsPage'), 'SessionsPage'),
    prefetch: (utils) => utils.security.sessions.prefetch(),
  },
  {
    path: '/settings/activity',
    title: 'activityTitle',
    component: lazyPage(() => import('./ActivityPage'), 'ActivityPage'),
    prefetch: (utils, search) => {
      const cursor = search.get('cursor');
      return utils.security.activity.prefetch(cursor ? { cursor } : {});
    },
  },
  {
    path: '/settings/name',
    title: 'nameTitle',
    component: lazyPage(() => import('./ChangeNamePage'), 'ChangeNamePage'),
  },
  {
    path: '/settings/two-step',
    title: 'twoStepTitle',
    component: lazyPage(() => import('./TwoStepPage'), 'TwoStepPage'),
    // A wrong code at the set-up: the page asks for it again beside the same secret.
    prefetch: async (utils, _search, form) =>
      form?.form === 'enableTotp' && form.problem ? utils.twoStep.pendingTotp.prefetch() : undefined,
  },
  {
    path: '/settings/passkeys',
    title: 'passkeysTitle',
    component: lazyPage(() => import('./PasskeysPage'), 'PasskeysPage'),
    prefetch: (utils) => utils.passkeys.list.prefetch(),
  },
  {
    path: '/settings/data',
    title: 'dataTitle',
    component: lazyPage(() => import('./DataPage'), 'DataPage'),
  },
  {
    path: '/settings/delete',
    title: 'deleteTitle',
    component: lazyPage(() => import('./DeleteAccountPage'), 'DeleteAccountPage'),
  },
  { path: '/forgot-password', component: mailPage('ForgotPasswordPage') },
  { path: '/reset-password', component: mailPage('ResetPasswordPage'), linkToken: true },
  {
    path: '/verify-email',
    component: mailPage('VerifyEmailPage'),
    linkToken: true,
    prefetch: (utils, search) =>
      utils.email.verificationLink.prefetch({ token: tokenOf(search) }, { staleTime: Infinity }),
  },
  {
    path: '/confirm-email-change',
    component: mailPage('ConfirmEmailChangePage'),
    linkToken: true,
    prefetch: (utils, search) => utils.emailChange.link.prefetch({ token: tokenOf(search) }, { staleTime: Infinity }),
  },
];

const NOT_FOUND: PageEntry = { path: '', component: NotFoundPage };

/** A path as pages are listed: without trailing slashes. */
export const normalizePath = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** The page at a (normalized) path, or the "not found" page. */
export const pageAt = (path: string): PageEntry => PAGE_REGISTRY.find((page) => page.path === path) ?? NOT_FOUND;
