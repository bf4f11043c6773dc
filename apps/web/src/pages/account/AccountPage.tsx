import { useEffect, useRef, type ReactNode } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { useI18n } from '../../i18n';
import { TimeAgo } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { Link, useLocation } from '../../router';
import { useRealmSettings, useTwoStep, type SignedInUser } from '../../session';
import { trpc } from '../../trpc';
import {
  RecoveryCodeNotice,
  RegisteredNotice,
  SecondFactorSuggestion,
  useAccountSecurity,
  useShowsRegistered,
} from './Notices';
import { useHubText } from './strings';
import { AddressStatus } from '../mail/AddressStatus';
import { passwordChangedOf } from '../page-state';
import '../../security.css';

export function AccountPage() {
  const { t } = useI18n();
  return (
    <RequireAuth>
      {(user) => (
        <>
          <PageHeading>{t('accountTitle')}</PageHeading>
          <Hub user={user} />
        </>
      )}
    </RequireAuth>
  );
}

function Hub({ user }: { user: SignedInUser }) {
  const { t } = useI18n();
  const h = useHubText();
  const { realm } = useRealmSettings();
  const changed = passwordChangedOf(useLocation().state);
  const registered = useShowsRegistered(user);
  return (
    <>
      {changed && <ChangeConfirmation revoked={changed.otherSessionsRevoked} />}
      {registered && <RegisteredNotice user={user} />}
      <RecoveryCodeNotice />
      <FewCodesLeft />
      <SecondFactorSuggestion />
      <div className="hub">
        <nav className="hub-nav" aria-label={h('hubNav')}>
          <a href="#profile">{h('hubProfile')}</a>
          <a href="#security">{h('hubSecurity')}</a>
          <a href="#data">{h('hubData')}</a>
        </nav>
        <div className="hub-sections">
          <HubSection id="profile" title={h('hubProfile')}>
            <HubRow to="/settings/name" title={t('nameTitle')}>
              <span className="account-name">{user.name}</span>
            </HubRow>
            <HubRow to="/settings/email" title={t('emailTitle')}>
              <span className="account-email">{user.email}</span>
              {/* Just registered, the notice above offers the link again (and says how it went). */}
              <AddressStatus user={user} offersResend={!registered} />
            </HubRow>
            {realm.named && (
              <li className="hub-row">
                <span className="hub-row-title">{t('accountRealm')}</span>
                <span className="hub-row-state account-realm">
                  {realm.name} <span className="realm-slug">{user.realm}</span>
                </span>
              </li>
            )}
          </HubSection>
          <HubSection id="security" title={h('hubSecurity')}>
            <PasswordRow />
            <TwoStepRow />
            <PasskeysRow />
            <HubRow to="/settings/sessions" title={t('sessionsTitle')}>
              {h('hubSessionsState')}
            </HubRow>
            <HubRow to="/settings/activity" title={t('activityTitle')}>
              {h('hubActivityState')}
            </HubRow>
            <HubRow to="/settings/connections" title={t('connectionsTitle')}>
              {h('hubConnectionsState')}
            </HubRow>
            <HubRow to="/settings/apps" title={t('appsTitle')}>
              {h('hubAppsState')}
            </HubRow>
          </HubSection>
          <HubSection id="data" title={h('hubData')}>
            <HubRow to="/settings/data" title={t('dataTitle')}>
              {h('hubDownloadState')}
            </HubRow>
            <HubRow to="/settings/delete" title={t('deleteTitle')} danger>
              {h('hubDeleteState')}
            </HubRow>
          </HubSection>
        </div>
      </div>
    </>
  );
}

function HubSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="hub-section" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ul className="hub-rows">{children}</ul>
    </section>
  );
}

/** One row of the hub: what it is (the way to its page, the whole row tall enough to tap), and its state in words. */
function HubRow({ to, title, danger, children }: { to: string; title: string; danger?: boolean; children: ReactNode }) {
  return (
    <li className={danger ? 'hub-row hub-row-danger' : 'hub-row'}>
      <Link to={to} className="hub-row-title">
        {title}
      </Link>
      <span className="hub-row-state">{children}</span>
    </li>
  );
}

/** The password: when it was last set, in words ("Last changed 3 days ago"), the date in its title. */
function PasswordRow() {
  const { t, locale } = useI18n();
  const h = useHubText();
  const security = useAccountSecurity();
  const changedAt = security?.passwordChangedAt;
  return (
    <HubRow to="/settings" title={t('changePasswordLink')}>
      {security &&
        (changedAt ? (
          <span className="password-changed">
            {h('hubPasswordChanged', { time: '' })}
            <TimeAgo at={changedAt} locale={locale} />
          </span>
        ) : (
          h('hubPasswordNone')
        ))}
    </HubRow>
  );
}

/** Two-step sign-in: on or off, with what it asks for and how many recovery codes are left (once known). */
function TwoStepRow() {
  const { t } = useI18n();
  const h = useHubText();
  const { twoStep } = useTwoStep();
  const methods = twoStep?.methods.filter((m) => m !== 'recovery_code') ?? [];
  const [first = '', second] = methods.map((m) => h(m === 'totp' ? 'hubMethodTotp' : 'hubMethodPasskey'));
  const asks = h('hubTwoStepOnWith', { methods: second ? h('hubMethodsBoth', { first, second }) : first });
  const codes = twoStep?.recoveryCodesLeft ?? 0;
  const left =
    codes === 0 ? h('hubCodesNone') : codes === 1 ? h('hubCodesOneLeft') : h('hubCodesLeft', { count: codes });
  return (
    <HubRow to="/settings/two-step" title={t('twoStepTitle')}>
      {twoStep && (
        <>
          <span className="two-step-badge">{twoStep.enabled ? t('twoStepStateOn') : t('twoStepStateOff')}</span>
          {': '}
          {twoStep.enabled ? `${asks}; ${left}` : h('hubTwoStepOffState')}
        </>
      )}
    </HubRow>
  );
}

/** Three recovery codes or fewer left: a banner asks for new ones before the last is used. */
function FewCodesLeft() {
  const h = useHubText();
  const { twoStep } = useTwoStep();
  if (!twoStep?.enabled || twoStep.recoveryCodesLeft > 3) return null;
  const left = twoStep.recoveryCodesLeft;
  return (
    <div className="notice few-codes" role="status">
      <p>
        {left === 0
          ? h('hubCodesNoneBanner')
          : left === 1
            ? h('hubCodesOneBanner')
            : h('hubCodesFewBanner', { count: left })}{' '}
        <Link to="/settings/two-step">{h('hubCodesRenew')}</Link>
      </p>
    </div>
  );
}

/** Passkeys: how many, in words (once known: the page does not come with them). */
function PasskeysRow() {
  const { t } = useI18n();
  const h = useHubText();
  const count = trpc.passkeys.list.useQuery(undefined).data?.passkeys.length;
  return (
    <HubRow to="/settings/passkeys" title={t('passkeysTitle')}>
      {count !== undefined && (
        <span className="passkeys-badge">
          {count === 0 ? h('hubPasskeysNone') : count === 1 ? h('hubPasskeysOne') : h('hubPasskeysMany', { count })}
        </span>
      )}
    </HubRow>
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
