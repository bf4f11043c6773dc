import { Layout } from './components/Layout';
import { LoadError, Loading } from './components/Status';
import { AccountPage } from './pages/AccountPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { RegisterPage } from './pages/RegisterPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { Redirect, useLocation } from './router';
import { useSession } from './session';
import { trpc } from './trpc';

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
    default:
      return <NotFoundPage />;
  }
}

/** Loads the realm first: every page shows it, and the forms need its password policy. */
export function App() {
  const settings = trpc.account.settings.useQuery(undefined, { staleTime: Infinity });
  const { path } = useLocation();
  if (!settings.data) {
    return (
      <main id="main" className="page">
        {settings.error ? <LoadError error={settings.error} retry={() => void settings.refetch()} /> : <Loading />}
      </main>
    );
  }
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return (
    <Layout>
      <Page key={normalized} path={normalized} />
    </Layout>
  );
}
