import { useI18n } from '../i18n';
import { Link } from '../router';
import { trpc } from '../trpc';

/**
 * The way to the passkeys page, and how many the account has: the count follows the link once it
 * is known (the page does not come with it), so nothing around it moves.
 */
export function PasskeysLink() {
  const { t } = useI18n();
  const count = trpc.passkeys.list.useQuery(undefined).data?.passkeys.length;
  return (
    <>
      <Link to="/settings/passkeys">{t('passkeysTitle')}</Link>
      {count !== undefined && (
        <>
          {' '}
          <span className={count > 0 ? 'badge passkeys-badge' : 'badge badge-off passkeys-badge'}>{count}</span>
        </>
      )}
    </>
  );
}
