import '../../security.css';
import { deleteAccountSchema } from '@accounts/validators';
import { useEffect, useRef, useState } from 'react';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useFormSuccess } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { useDeleteText } from './strings';
import { RequireAuth } from '../../RequireAuth';
import { Link } from '../../router';
import { useForgetSession, type SignedInUser } from '../../session';
import { trpc } from '../../trpc';

export function DeleteAccountPage() {
  const { t } = useI18n();
  // Deleted without scripts: the page the server answers with (nobody signed in by then) says
  // so, instead of sending the person to sign in.
  const [deleted, setDeleted] = useState(useFormSuccess('deleteAccount') !== null);
  return (
    <>
      <PageHeading>{t('deleteTitle')}</PageHeading>
      {deleted ? (
        <Deleted />
      ) : (
        <RequireAuth>{(user) => <DeleteAccountForm user={user} onDeleted={() => setDeleted(true)} />}</RequireAuth>
      )}
    </>
  );
}

/** Says it is done (taking focus so it is read out); the session is gone, so no sign-in redirect. */
function Deleted() {
  const s = useDeleteText();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="success account-deleted" role="status" tabIndex={-1} ref={ref}>
      <p>{s('accountDeleted')}</p>
      <p>
        <Link to="/register">{s('createAnother')}</Link>
      </p>
    </div>
  );
}

function DeleteAccountForm({ user, onDeleted }: { user: SignedInUser; onDeleted: () => void }) {
  const s = useDeleteText();
  const { t } = useI18n();
  const forgetSession = useForgetSession();
  const deleteAccount = trpc.security.deleteAccount.useMutation();
  const form = useForm({
    name: 'deleteAccount',
    initial: { current_password: '' },
    schema: deleteAccountSchema,
    whenEmpty: { current_password: 'emptyCurrentPassword' },
    submit: async (values) => {
      await deleteAccount.mutateAsync(values);
      onDeleted();
      void forgetSession();
    },
  });
  const labels = { current_password: t('fieldCurrentPassword') };
  return (
    <>
      <p className="intro">{s('deleteIntro')}</p>
      <ul className="delete-what">
        <li>{s('deleteWhatAccount')}</li>
        <li>{s('deleteWhatSessions')}</li>
        <li>{s('deleteWhatSignIn')}</li>
        <li>{s('deleteWhatActivity')}</li>
      </ul>
      <p>{s('deleteAfter')}</p>
      <p className="delete-copy-first">
        {s('deleteCopyFirst')} <Link to="/settings/data">{t('dataTitle')}</Link>
      </p>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)} className="danger-zone">
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SubmitButton busy={form.submitting} label={s('deleteSubmit')} busyLabel={s('deleteBusy')} danger />
        <Link to="/account" className="secondary button-link">
          {s('deleteCancel')}
        </Link>
      </PostForm>
    </>
  );
}
