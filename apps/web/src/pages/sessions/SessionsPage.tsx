import '../../security.css';
import { useEffect, useRef, useState } from 'react';
import { ConfirmOwner } from '../../components/ConfirmOwner';
import { PageHeading } from '../../components/PageHeading';
import { LoadError, Loading } from '../../components/Status';
import { StepLink, stepHref } from '../../components/StepLink';
import { isUnauthenticated } from '../../failure';
import { useFocusNext } from '../../focus';
import { useFormResult } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { useDeviceText } from '../../i18n/device-strings';
import { useSessionsText } from './strings';
import { byDay, DayHeading, dayOf, TimeAgo, useTimeZone } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { navigate, useLocation } from '../../router';
import { useForgetSession, useSessionEnded, type SignedInUser } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';

export function SessionsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('sessionsTitle')}</PageHeading>
      <RequireAuth>{(user) => <SessionList user={user} />}</RequireAuth>
    </>
  );
}

/** What the person is confirming: ending one other device (its session's id), or all of them ('others'). */
type Ending = string;

/** The page's address with a confirm step open (`?end=`): a link opens it without scripts. */
const END = 'end';

/**
 * The account's sessions by the day each was last active (this device's: today, it is in use), this
 * device first, each other one with a button that ends it (after the password).
 */
function SessionList({ user }: { user: SignedInUser }) {
  const s = useSessionsText();
  const unknown = useDeviceText();
  const { locale, t } = useI18n();
  const { zone } = useTimeZone();
  const revokedText = (revoked: number) =>
    revoked === 0 ? t('revokedNone') : revoked === 1 ? t('revokedOne') : t('revokedMany', { count: revoked });
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const forgetSession = useForgetSession();
  const list = trpc.security.sessions.useQuery(undefined);
  const revoke = trpc.security.revokeSession.useMutation();
  const revokeOthers = trpc.security.revokeOtherSessions.useMutation();
  const { path, search } = useLocation();
  // Ended without scripts: the page the server answers with says so, as after a submit here.
  const revokedOne = useFormResult<RouterOutputs['security']['revokeSession']>('revokeSession');
  const revokedOthers = useFormResult<RouterOutputs['security']['revokeOtherSessions']>('revokeOtherSessions');
  const [status, setStatus] = useState<string | null>(() =>
    revokedOne ? s('sessionsRevokedOne') : revokedOthers ? revokedText(revokedOthers.revoked) : null,
  );
  const [ending, setEnding] = useState<Ending | null>(() => (revokedOne || revokedOthers ? null : search.get(END)));
  // A cancelled confirm step gives focus back to the link that opened it (its data-ends), once it is shown again.
  const focusNext = useFocusNext();
  const statusRef = useRef<HTMLDivElement>(null);

  // This device was signed out elsewhere: say so on the sign-in page.
  useEffect(() => {
    if (list.error && isUnauthenticated(list.error)) sessionEnded();
  }, [list.error]); // eslint-disable-line react-hooks/exhaustive-deps

  const done = (message: string) => {
    setEnding(null);
    setStatus(message);
    statusRef.current?.focus();
    void utils.security.sessions.invalidate();
  };
  const confirm = (what: Ending) => {
    setStatus(null);
    setEnding(what);
  };
  const cancel = () => {
    if (ending) focusNext(`[data-ends="${ending}"]`);
    setEnding(null);
  };

  if (list.error && !isUnauthenticated(list.error))
    return <LoadError error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  const sessions = list.data.sessions;
  const others = sessions.filter((one) => !one.current).length;
  const today = dayOf(Date.now(), zone);
  const days = byDay(sessions, (one) => (one.current ? today : dayOf(one.lastUsedAt, zone)));

  // Errors (wrong password, limits, a session that ended) are the confirm form's to show.
  const onRevoke = async (id: string, current_password: string) => {
    const result = await revoke.mutateAsync({ session_id: id, current_password });
    if (result.signedOut) {
      navigate('/login');
      void forgetSession();
    } else done(s('sessionsRevokedOne'));
  };
  const onRevokeOthers = async (current_password: string) => {
    const { revoked } = await revokeOthers.mutateAsync({ current_password });
    done(revokedText(revoked));
  };
  const busy = revoke.isPending || revokeOthers.isPending;

  return (
    <>
      <p className="intro">{s('sessionsIntro')}</p>
      <div role="status" className={status ? 'success' : undefined} tabIndex={-1} ref={statusRef}>
        {status && <p>{status}</p>}
      </div>
      {days.map(({ day, items }) => (
        <section key={day} aria-labelledby={`day-${day}`}>
          <DayHeading day={day} locale={locale} zone={zone} id={`day-${day}`} />
          <ul className="sessions">
            {items.map((one) => {
              const device = one.device ?? unknown('sessionsUnknownDevice');
              return (
                <li key={one.id} className="session" data-current={one.current || undefined}>
                  <h3 className="session-device">
                    {device}
                    {one.current && <span className="badge">{s('sessionsThisDevice')}</span>}
                  </h3>
                  <p className="session-address">{one.address ?? unknown('sessionsUnknownAddress')}</p>
                  <p className="session-times">
                    {s('sessionsLastUsed', { time: '' })}
                    <TimeAgo at={one.lastUsedAt} locale={locale} />
                    {' · '}
                    {s('sessionsSignedIn', { time: '' })}
                    <TimeAgo at={one.createdAt} locale={locale} />
                  </p>
                  {!one.current &&
                    (ending === one.id ? (
                      <ConfirmOwner
                        name="revokeSession"
                        hidden={{ session_id: one.id }}
                        cancelHref={path}
                        user={user}
                        prompt={s('sessionsConfirmOne', { device })}
                        label={s('sessionsRevokeLabel', { device })}
                        busyLabel={s('sessionsRevoking')}
                        cancelLabel={s('sessionsCancel')}
                        onConfirm={(password) => onRevoke(one.id, password)}
                        onCancel={cancel}
                      />
                    ) : (
                      <StepLink
                        href={stepHref(path, END, one.id)}
                        className="secondary button-link"
                        aria-label={s('sessionsRevokeLabel', { device })}
                        data-ends={one.id}
                        onOpen={() => {
                          if (!busy) confirm(one.id);
                        }}
                      >
                        {s('sessionsRevoke')}
                      </StepLink>
                    ))}
                </li>
              );
            })}
          </ul>
        </section>
      ))}
      {others > 0 && ending === 'others' ? (
        <ConfirmOwner
          name="revokeOtherSessions"
          cancelHref={path}
          user={user}
          prompt={s('sessionsConfirmOthers')}
          label={s('sessionsRevokeOthers')}
          busyLabel={s('sessionsRevoking')}
          cancelLabel={s('sessionsCancel')}
          onConfirm={onRevokeOthers}
          onCancel={cancel}
        />
      ) : others > 0 ? (
        <StepLink
          href={stepHref(path, END, 'others')}
          className="primary button-link"
          data-ends="others"
          onOpen={() => {
            if (!busy) confirm('others');
          }}
        >
          {s('sessionsRevokeOthers')}
        </StepLink>
      ) : (
        <p className="only-this">{s('sessionsOnlyThis')}</p>
      )}
    </>
  );
}
