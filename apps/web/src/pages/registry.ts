import { lazy, type ComponentType } from 'react';
import type { UiKey } from '../i18n';
import { HomePage } from './HomePage';
import { NotFoundPage } from './NotFoundPage';
import { SignInPage } from './sign-in/SignInPage';

// Every page of the app, once: the app's switch, the heading shown while a page loads, the
// server's render and the tests that go through every page all read this list. (What the server
// asks for a page before rendering it is in prefetch.ts, which only the server build loads.)

export interface PageEntry<P extends string = string> {
  path: P;
  /** The heading shown while the page's code or the realm's settings load. */
  title?: UiKey;
  component: ComponentType;
  /** Opened from a mailed link, whose address carries `?token=`: its page needs no session. */
  linkToken?: true;
  /** A page for someone not signed in (signing in, registering): its queries are asked without a session. */
  signedOut?: true;
}

/** A page whose code loads when it is first shown, as a chunk of its own (or a shared one). */
const lazyPage = <K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));

// The pages behind mailed links share one chunk.
const mailPage = (name: 'ForgotPasswordPage' | 'ResetPasswordPage' | 'VerifyEmailPage' | 'ConfirmEmailChangePage') =>
  lazyPage(() => import('./mail/MailPages'), name);

/** The list as written, its paths kept in its type (PagePath). */
const listed = <P extends string>(pages: readonly PageEntry<P>[]) => pages;

export const PAGE_REGISTRY = listed([
  { path: '/', component: HomePage },
  { path: '/login', title: 'signInTitle', component: SignInPage, signedOut: true },
  // The pages where a new password is typed carry the password rule and its data: they load on
  // their own, so the sign-in page (most visits) does not download them.
  {
    path: '/register',
    title: 'registerTitle',
    component: lazyPage(() => import('./register/RegisterPage'), 'RegisterPage'),
    signedOut: true,
  },
  // The hub loads on its own too: the sign-in page's first load stays small.
  {
    path: '/account',
    title: 'accountTitle',
    component: lazyPage(() => import('./account/AccountPage'), 'AccountPage'),
  },
  {
    path: '/settings',
    title: 'settingsTitle',
    component: lazyPage(() => import('./change-password/SettingsPage'), 'SettingsPage'),
  },
  {
    path: '/settings/email',
    title: 'emailTitle',
    component: lazyPage(() => import('./email/ChangeEmailPage'), 'ChangeEmailPage'),
  },
  {
    path: '/settings/sessions',
    title: 'sessionsTitle',
    component: lazyPage(() => import('./sessions/SessionsPage'), 'SessionsPage'),
  },
  {
    path: '/settings/apps',
    title: 'appsTitle',
    component: lazyPage(() => import('./apps/AppsPage'), 'AppsPage'),
  },
  {
    path: '/settings/activity',
    title: 'activityTitle',
    component: lazyPage(() => import('./activity/ActivityPage'), 'ActivityPage'),
  },
  {
    path: '/settings/name',
    title: 'nameTitle',
    component: lazyPage(() => import('./name/ChangeNamePage'), 'ChangeNamePage'),
  },
  {
    path: '/settings/two-step',
    title: 'twoStepTitle',
    component: lazyPage(() => import('./two-step/TwoStepPage'), 'TwoStepPage'),
  },
  {
    path: '/settings/passkeys',
    title: 'passkeysTitle',
    component: lazyPage(() => import('./passkeys/PasskeysPage'), 'PasskeysPage'),
  },
  {
    path: '/settings/connections',
    title: 'connectionsTitle',
    component: lazyPage(() => import('./connections/ConnectionsPage'), 'ConnectionsPage'),
  },
  {
    path: '/settings/data',
    title: 'dataTitle',
    component: lazyPage(() => import('./data/DataPage'), 'DataPage'),
  },
  {
    path: '/settings/delete',
    title: 'deleteTitle',
    component: lazyPage(() => import('./delete/DeleteAccountPage'), 'DeleteAccountPage'),
  },
  { path: '/forgot-password', component: mailPage('ForgotPasswordPage') },
  { path: '/reset-password', component: mailPage('ResetPasswordPage'), linkToken: true },
  {
    path: '/verify-email',
    component: mailPage('VerifyEmailPage'),
    linkToken: true,
  },
  {
    path: '/confirm-email-change',
    component: mailPage('ConfirmEmailChangePage'),
    linkToken: true,
  },
]);

/** A page's path, as listed: a mistyped one is no PagePath. */
export type PagePath = (typeof PAGE_REGISTRY)[number]['path'];

const NOT_FOUND: PageEntry = { path: '', component: NotFoundPage };

/** A path as pages are listed: without trailing slashes. */
export const normalizePath = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** The page at a (normalized) path, or the "not found" page. */
export const pageAt = (path: string): PageEntry => PAGE_REGISTRY.find((page) => page.path === path) ?? NOT_FOUND;
