import { Layout } from './components/Layout';
import { PageHeading } from './components/PageHeading';
import { LoadError, Loading } from './components/Status';
import { useI18n } from './i18n';
import { PAGE_TITLES } from './page-titles';
import { lazy, Suspense } from 'react';
import { AccountPage } from './pages/AccountPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SignInPage } from './pages/SignInPage';
import { Redirect, useLocation } from './router';
import { useSession, useSettingsQuery } from './session';

// The pages where a new password is typed carry the password rule and its data: they load on
// their own, so the sign-in page (most visits) does not download them.
const RegisterPage = lazy(() => import('./pages/RegisterPage').then((m) => ({ default: m.RegisterPage })));
const SettingsPage = lazy(() => import('./pages/SettingsPage').then((m) => ({ default: m.SettingsPage })));
// The pages behind mailed links.
const mailPage = (name: 'ForgotPasswordPage' | 'ResetPasswordPage' | 'VerifyEmailPage') => lazy(() => import('./pages/MailPages').then((m) => ({ default: m[name] })));
const ForgotPasswordPage = mailPage('ForgotPasswordPage');
const ResetPasswordPage = mailPage('ResetPasswordPage');
const VerifyEmailPage = mailPage('VerifyEmailPage');
// The security pages.
const SessionsPage = lazy(() => import('./pages/SessionsPage').then((m) => ({ default: m.SessionsPage })));
const ActivityPage = lazy(() => import('./pages/ActivityPage').then((m) => ({ default: m.ActivityPage })));
const ChangeNamePage = lazy(() => import('./pages/ChangeNamePage').then((m) => ({ default: m.ChangeNamePage })));
const DeleteAccountPage = lazy(() => import('./pages/DeleteAccountPage').then((m) => ({ default: m.DeleteAccountPage })));

function Home() {
  const session = useSession();
  if (session.status === 'signed-in') return <Redirect to="/account" />;
  if (session.status === 'signed-out') return <Redirect to="/login" />;
  if (session.status === 'error') return <LoadError error={session.error} retry={session.retry} />;
  return <Loading />;
}

function Page({ path }: { path: string }) {
  switch (path) {
    case '/':
      return <Home />;
    case '/register':
      return <RegisterPage />;
    case '/login':
      return <SignInPage />;
    case '/account':
      return <AccountPage />;
    case '/settings':
      return <SettingsPage />;
    case '/forgot-password':
      return <ForgotPasswordPage />;
    case '/reset-password':
      return <ResetPasswordPage />;
    case '/verify-email':
      return <VerifyEmailPage />;
    case '/settings/sessions':
      return <SessionsPage />;
    case '/settings/activity':
      return <ActivityPage />;
    case '/settings/name':
      return <ChangeNamePage />;
    case '/settings/delete':
      return <DeleteAccountPage />;
    default:
      return <NotFoundPage />;
  }
}

/** The page's frame and heading at once; its content once the realm's settings are known. */
function PendingPage({ path, failure }: { path: string; failure?: { error: unknown; retry: () => void } }) {
  const { t } = useI18n();
  const title = PAGE_TITLES[path];
  return (
    <>
      {title ? <PageHeading>{t(title)}</PageHeading> : failure && <PageHeading>{t('loadFailedTitle')}</PageHeading>}
      {failure ? <LoadError error={failure.error} retry={failure.retry} /> : <Loading />}
    </>
  );
}

export function App() {
  const settings = useSettingsQuery();
  const { path } = useLocation();
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return (
    <Layout>
      {settings.data ? (
        <Suspense fallback={<PendingPage path={normalized} />}>
          <Page key={normalized} path={normalized} />
        </Suspense>
      ) : (
        <PendingPage
          path={normalized}
          failure={settings.error ? { error: settings.error, retry: () => void settings.refetch() } : undefined}
        />
      )}
    </Layout>
  );
}
