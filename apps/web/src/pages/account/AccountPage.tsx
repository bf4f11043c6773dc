import { useEffect, useRef } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { PasskeysLink } from '../../components/PasskeysLink';
import { TwoStepLink } from '../../components/TwoStepLink';
import { useI18n } from '../../i18n';
import { RequireAuth } from '../../RequireAuth';
import { Link, useLocation } from '../../router';
import { useRealmSettings } from '../../session';
import { AddressStatus } from '../mail/AddressStatus';
import { passwordChangedOf } from '../page-state';
import '../../security.css';

export function AccountPage() {
  const { t } = useI18n();
  const { realm } = useRealmSettings();
  const changed = passwordChangedOf(useLocation().state);
  return (
    <RequireAuth>
      {(user) => (
        <>
          <PageHeading>{t('accountTitle')}</PageHeading>
          {changed && <ChangeConfirmation revoked={changed.otherSessionsRevoked} />}
          <dl className="details">
            <div>
              <dt>{t('accountName')}</dt>
              <dd className="account-name">{user.name}</dd>
            </div>
            <div>
              <dt>{t('accountEmail')}</dt>
              <dd>
                <span className="account-email">{user.email}</span>
                <AddressStatus user={user} />
              </dd>
            </div>
            {realm.named && (
              <div>
                <dt>{t('accountRealm')}</dt>
                <dd className="account-realm">
                  {realm.name} <span className="realm-slug">{user.realm}</span>
                </dd>
              </div>
            )}
          </dl>
          <p>
            <Link to="/settings">{t('changePasswordLink')}</Link>
          </p>
          <h2>{t('accountSecurity')}</h2>
          <ul className="account-links">
            <li>
              <Link to="/settings/email">{t('emailTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/sessions">{t('sessionsTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/apps">{t('appsTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/connections">{t('connectionsTitle')}</Link>
            </li>
            <li>
              <TwoStepLink />
            </li>
            <li>
              <PasskeysLink />
            </li>
            <li>
              <Link to="/settings/activity">{t('activityTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/name">{t('nameTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/data">{t('dataTitle')}</Link>
            </li>
            <li>
              <Link to="/settings/delete">{t('deleteTitle')}</Link>
            </li>
          </ul>
        </>
      )}
    </RequireAuth>
  );
}

/** Says the change worked and what it did to other devices; takes focus so it is read out. */
function ChangeConfirmation({ revoked }: { revoked: number }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const others =
    revoked === 0 ? t('revokedNone') : revoked === 1 ? t('revokedOne') : t('revokedMany', { count: revoked });
  return (
    <div className="success" role="status" tabIndex={-1} ref={ref}>
      <p>{t('passwordChanged')}</p>
      <p className="revoked">{others}</p>
      <p>
        <Link to="/settings/sessions">{t('seeSessions')}</Link>
      </p>
    </div>
  );
}
