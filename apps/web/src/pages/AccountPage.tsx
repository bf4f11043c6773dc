import { PageHeading } from '../components/PageHeading';
import { useI18n } from '../i18n';
import { RequireAuth } from '../RequireAuth';
import { Link } from '../router';
import { useRealmSettings } from '../session';

export function AccountPage() {
  const { t } = useI18n();
  const { realm } = useRealmSettings();
  return (
    <RequireAuth>
      {(user) => (
        <>
          <PageHeading>{t('accountTitle')}</PageHeading>
          <dl className="details">
            <div>
              <dt>{t('accountName')}</dt>
              <dd className="account-name">{user.name}</dd>
            </div>
            <div>
              <dt>{t('accountEmail')}</dt>
              <dd className="account-email">{user.email}</dd>
            </div>
            <div>
              <dt>{t('accountRealm')}</dt>
              <dd className="account-realm">
                {realm.name} <span className="realm-slug">{user.realm}</span>
              </dd>
            </div>
          </dl>
          <p>
            <Link to="/settings">{t('changePasswordLink')}</Link>
          </p>
        </>
      )}
    </RequireAuth>
  );
}
