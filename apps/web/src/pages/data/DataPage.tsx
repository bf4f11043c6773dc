import '../../security.css';
import { revokeOtherSessionsSchema } from '@accounts/validators';
import { useEffect, useMemo, useState } from 'react';
import { CurrentPasswordField, isPasswordRecheck } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { saveFile } from '../../download';
import { useFormOutcome } from '../../forms/form-outcome';
import { useForm, type FormSchema } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { useDataText, type DataKey } from './strings';
import { RequireAuth } from '../../RequireAuth';
import type { SignedInUser } from '../../session';
import { trpc, type Problem, type RouterOutputs } from '../../trpc';

type AccountExport = RouterOutputs['accountData']['export'];

/** What the file holds, in the order of the document. */
const CONTENTS: readonly DataKey[] = [
  'dataWhatAccount',
  'dataWhatSessions',
  'dataWhatDevices',
  'dataWhatActivity',
  'dataWhatMails',
  'dataWhatFactors',
];

/** The name the gateway's download gives the same document: `account-<realm>-<YYYY-MM-DD>.json` (UTC). */
export const exportFileName = (copy: Pick<AccountExport, 'realm' | 'exportedAt'>) =>
  `account-${copy.realm.slug}-${new Date(copy.exportedAt).toISOString().slice(0, 10)}.json`;

/**
 * A copy of everything the service holds about the account (GDPR articles 15 and 20), saved as a
 * JSON file: what it contains, then the button; the current password when the session has not
 * proved it for five minutes.
 */
export function DataPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('dataTitle')}</PageHeading>
      <RequireAuth>{(user) => <DownloadData user={user} />}</RequireAuth>
    </>
  );
}

const NOTHING_TO_CHECK: FormSchema = { safeParse: () => ({ success: true }) };

/** A refusal that is about the password: asked for again, or wrong when given. */
const asksPassword = (problem: Problem) => (problem.errors ?? []).some((e) => e.field === 'current_password');

function DownloadData({ user }: { user: SignedInUser }) {
  const s = useDataText();
  const { t } = useI18n();
  const exportData = trpc.accountData.export.useMutation();
  // Posted without scripts, the answer is the file itself (the page stays as it is); or this page
  // again when the password is asked for (again, if it was wrong).
  const posted = useFormOutcome('exportData');
  const [recheck, setRecheck] = useState(() => posted?.problem !== undefined && asksPassword(posted.problem));
  const [saved, setSaved] = useState<string | null>(null);
  const schema = useMemo(() => (recheck ? revokeOtherSessionsSchema : NOTHING_TO_CHECK), [recheck]);
  const form = useForm({
    name: 'exportData',
    initial: { current_password: '' },
    schema,
    pageShows: isPasswordRecheck,
    whenEmpty: { current_password: 'emptyCurrentPassword' },
    submit: async ({ current_password }) => {
      setSaved(null);
      let copy: AccountExport;
      try {
        copy = await exportData.mutateAsync(recheck ? { current_password } : {});
      } catch (error) {
        if (recheck || !isPasswordRecheck(error)) throw error;
        // Asked, not refused: the field appears as new, nothing marked wrong yet.
        form.reset();
        setRecheck(true);
        return;
      }
      // The password is proved for the next few minutes: another copy needs it no more.
      setRecheck(false);
      form.reset();
      const name = exportFileName(copy);
      saveFile(name, `${JSON.stringify(copy, null, 2)}\n`, 'application/json');
      setSaved(name);
    },
  });
  // Asked for, the password field takes focus; what it is for is said with it.
  useEffect(() => {
    if (recheck) document.getElementById('current_password')?.focus();
  }, [recheck]);

  const labels = { current_password: t('fieldCurrentPassword') };
  return (
    <>
      <p className="intro">{s('dataIntro')}</p>
      <ul className="data-what">
        {CONTENTS.map((key) => (
          <li key={key}>{s(key)}</li>
        ))}
      </ul>
      <p className="data-no-secrets">
        <strong>{s('dataNoSecrets')}</strong>
      </p>
      <p>{s('dataKeepSafe')}</p>
      <div role="status" className={saved ? 'success' : undefined}>
        {saved && <p className="data-saved">{s('dataDone', { file: saved })}</p>}
      </div>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        {recheck && (
          <CurrentPasswordField
            form={form}
            label={labels.current_password}
            email={user.email}
            asked={{ id: 'data-recheck', text: s('dataRecheck') }}
          />
        )}
        <SubmitButton busy={form.submitting} label={s('dataSubmit')} busyLabel={s('dataBusy')} />
      </PostForm>
    </>
  );
}
