import type { ReactNode } from 'react';
import { useI18n } from '../i18n';
import { Link, useLocation } from '../router';
import { useProductName, useSession, useSettingsQuery } from '../session';
import { SignOutButton } from './SignOutButton';

function NavLink({ to, children }: { to: string; children: string }) {
  const { path } = useLocation();
  return (
    <Link to={to} aria-current={path === to ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/**
 * The frame of every page, drawn at once: the product, the realm when it is not the default one,
 * and the navigation once it is known who is signed in. Until then the navigation's place is
 * kept empty, so a signed-in person never sees the signed-out links, and nothing moves.
 */
export function Layout({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const realm = useSettingsQuery().data?.realm;
  const productName = useProductName();
  const session = useSession();
  return (
    <>
      <a className="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header className="site-header">
        <p className="brand">
          <Link to="/" className="product-name">
            {productName}
          </Link>
          {realm?.named && (
            <>
              {' '}
              <span className="realm">
                <span className="visually-hidden">{t('realmLabel')}</span>
                <span className="realm-name">{realm.name}</span>
              </span>
            </>
          )}
        </p>
        <nav aria-label={t('mainNav')} aria-busy={session.status === 'loading' || undefined}>
          {session.status === 'signed-in' && (
            <>
              {/* Everything else is a row of the account hub: the header stays one row on a phone. */}
              <NavLink to="/account">{t('navAccount')}</NavLink>
              <SignOutButton />
            </>
          )}
          {(session.status === 'signed-out' || session.status === 'error') && (
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
