import '../../security.css';
import { changeEmailSchema } from '@accounts/validators/account-links';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { EmailField } from '../../components/EmailField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { LoadError, Loading } from '../../components/Status';
import { SubmitButton } from '../../components/SubmitButton';
import { describeFailure, isUnauthenticated } from '../../failure';
import { problemError, useFormOutcome, useFormSuccess } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { useEmailText } from './strings';
import { absoluteTime } from '../../relative-time';
import { RequireAuth } from '../../RequireAuth';
import { useSessionEnded, type SignedInUser } from '../../session';
import { trpc } from '../../trpc';
import { AddressStatus } from '../mail/AddressStatus';

/**
 * The account's address: the current one and whether it is confirmed, a change waiting for its
 * link (with Cancel: the old address's "stop the change" link leads here), and the form that asks
 * for a change.
 */
export function ChangeEmailPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('emailTitle')}</PageHeading>
      <RequireAuth>{(user) => <EmailAddress user={user} />}</RequireAuth>
    </>
  );
}

function EmailAddress({ user }: { user: SignedInUser }) {
  const s = useEmailText();
  // The address a link was just sent to (as typed); asked without scripts, the server's answer
  // says the same.
  const requested = useFormSuccess('requestEmailChange');
  const [sent, setSent] = useState<string | null>(() => (requested ? (requested.new_email ?? '').trim() : null));
  return (
    <>
      <p className="intro">{s('emailIntro')}</p>
      <dl className="details">
        <div>
          <dt>{s('emailCurrent')}</dt>
          <dd>
            <span className="account-email">{user.email}</span>
            <AddressStatus user={user} />
          </dd>
        </div>
      </dl>
      {/*
        Not shown again after a request: whether a change to the address asked for is now
        pending would tell whether another account has that address. The page says the same
        either way; a later visit shows the server's state.
      */}
      {sent === null && <PendingChange />}
      <ChangeEmailForm user={user} sent={sent} onSent={setSent} />
    </>
  );
}

/** The change waiting for its link, if any, with a way to stop it. */
function PendingChange() {
  const s = useEmailText();
  const { locale } = useI18n();
  const sessionEnded = useSessionEnded();
  const pending = trpc.emailChange.pending.useQuery(undefined);
  const cancel = trpc.emailChange.cancel.useMutation();
  // Stopped without scripts: the page the server answers with (the change gone) says so.
  const posted = useFormOutcome('cancelEmailChange');
  const [cancelled, setCancelled] = useState<string | null>(() =>
    posted && !posted.problem ? (posted.values.email ?? '') : null,
  );
  const saidRef = useRef<HTMLDivElement>(null);

  // The button that had focus is gone with the change: focus goes to what the page says.
  useEffect(() => {
    if (cancelled) saidRef.current?.focus();
  }, [cancelled]);
  useEffect(() => {
    const error = pending.error ?? cancel.error;
    if (error && isUnauthenticated(error)) sessionEnded();
  }, [pending.error, cancel.error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (pending.error && !isUnauthenticated(pending.error))
    return <LoadError error={pending.error} retry={() => void pending.refetch()} />;
  if (!pending.data) return <Loading />;

  const change = pending.data.pending;
  const onCancel = (event: FormEvent) => {
    event.preventDefault();
    if (!change || cancel.isPending) return;
    cancel.mutate(undefined, {
      onSuccess: () => void pending.refetch().then(() => setCancelled(change.newEmail)),
    });
  };
  const cancelError =
    cancel.error && !isUnauthenticated(cancel.error)
      ? cancel.error
      : cancel.isIdle && posted?.problem
        ? problemError(posted.problem)
        : null;

  return (
    <>
      <div role="status" className={cancelled ? 'success' : undefined} tabIndex={-1} ref={saidRef}>
        {cancelled && <p className="email-cancelled">{s('emailCancelled', { email: cancelled })}</p>}
      </div>
      {change && (
        <section className="email-pending notice" aria-labelledby="email-pending-title">
          <h2 id="email-pending-title">{s('emailPendingTitle')}</h2>
          <p className="email-pending-what">
            {s('emailPending', { email: change.newEmail, time: absoluteTime(change.expiresAt, locale) })}
          </p>
          {cancelError && (
            <p className="field-error" role="alert">
              {describeFailure(cancelError, locale).message}
            </p>
          )}
          {/* The address goes along for what the page says afterwards (the change is gone by then). */}
          <PostForm
            name="cancelEmailChange"
            onSubmit={onCancel}
            busy={cancel.isPending}
            hidden={{ email: change.newEmail }}
          >
            <SubmitButton
              busy={cancel.isPending}
              label={s('emailPendingCancel')}
              busyLabel={s('emailPendingCancelling')}
            />
          </PostForm>
        </section>
      )}
    </>
  );
}

/** The new address and the current password; the answer is the same whether or not the address is free. */
function ChangeEmailForm({
  user,
  sent,
  onSent,
}: {
  user: SignedInUser;
  sent: string | null;
  onSent: (email: string) => void;
}) {
  const s = useEmailText();
  const { t } = useI18n();
  const request = trpc.emailChange.request.useMutation();
  const form = useForm({
    name: 'requestEmailChange',
    initial: { new_email: '', current_password: '' },
    schema: changeEmailSchema,
    keep: ['new_email'],
    whenEmpty: { new_email: 'emptyNewEmail', current_password: 'emptyCurrentPassword' },
    submit: async (values) => {
      await request.mutateAsync(values);
      onSent(values.new_email.trim());
      form.reset();
    },
  });
  const labels = { new_email: s('fieldNewEmail'), current_password: t('fieldCurrentPassword') };
  return (
    <section className="email-change" aria-labelledby="email-change-title">
      <h2 id="email-change-title">{s('emailChangeTitle')}</h2>
      <div role="status" className={sent ? 'success' : undefined}>
        {sent && (
          <>
            <p className="email-sent">{s('emailSent', { email: sent })}</p>
            <p>{s('emailSentHelp')}</p>
          </>
        )}
      </div>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <EmailField form={form} name="new_email" label={labels.new_email} autoComplete="email" />
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SubmitButton busy={form.submitting} label={s('emailSubmit')} busyLabel={s('emailBusy')} />
      </PostForm>
    </section>
  );
}
