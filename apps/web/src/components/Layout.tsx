import type { ReactNode } from 'react';
import { useI18n } from '../i18n';
import { Link, useLocation } from '../router';
import { useRealmSettings, useSession } from '../session';
import { SignOutButton } from './SignOutButton';

function NavLink({ to, children }: { to: string; children: string }) {
  const { path } = useLocation();
  return (
    <Link to={to} aria-current={path === to ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The frame of every page: which realm this is, where to go, and sign-out when signed in. */
export function Layout({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const { realm } = useRealmSettings();
  const session = useSession();
  return (
    <>
      <a className="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header className="site-header">
        <p className="realm">
          <span className="realm-label">{t('realmLabel')}</span>{' '}
          <strong className="realm-name">{realm.name}</strong> <span className="realm-slug">{realm.slug}</span>
        </p>
        <nav aria-label={t('mainNav')}>
          {session.status === 'signed-in' ? (
            <>
              <NavLink to="/account">{t('navAccount')}</NavLink>
              <NavLink to="/settings">{t('navSettings')}</NavLink>
              <SignOutButton />
            </>
          ) : (
            <>
              <NavLink to="/login">{t('navSignIn')}</NavLink>
              <NavLink to="/register">{t('navRegister')}</NavLink>
            </>
          )}
        </nav>
      </header>
      <main id="main" className="page" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
