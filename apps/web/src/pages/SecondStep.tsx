import { secondStepSchema } from '@accounts/validators';
import { useEffect, useState } from 'react';
import { CodeField } from '../components/CodeField';
import { ErrorSummary } from '../components/ErrorSummary';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { useSecurityStrings } from '../i18n/security-strings';
import type { SignedInUser } from '../session';
import { problemOf, trpc } from '../trpc';

/**
 * The sign-in's second step, after a correct password for an account with two-step sign-in: the
 * code from the authenticator app, or a recovery code instead. The pending sign-in is the
 * server's cookie; when it has expired (or too many wrong codes ended it) the person starts
 * again with the password.
 */
export function SecondStep({
  onSignedIn,
  onExpired,
  onRestart,
}: {
  onSignedIn: (user: SignedInUser) => void;
  onExpired: () => void;
  onRestart: () => void;
}) {
  const { s, t } = useSecurityStrings();
  const [kind, setKind] = useState<'app' | 'recovery'>('app');
  const secondStep = trpc.account.signInSecondStep.useMutation();
  const form = useForm({
    initial: { code: '' },
    schema: secondStepSchema,
    whenEmpty: { code: kind === 'app' ? 'emptyCode' : 'emptyRecoveryCode' },
    submit: async ({ code }) => {
      try {
        const { user } = await secondStep.mutateAsync({ code });
        onSignedIn(user);
      } catch (error) {
        if (problemOf(error)?.code === 'sign_in_expired') onExpired();
        else throw error;
      }
    },
  });
  // The code field takes focus when the step appears and when the kind of code changes.
  useEffect(() => document.getElementById('code')?.focus(), [kind]);

  const app = kind === 'app';
  const labels = { code: app ? s('fieldCode') : s('fieldRecoveryCode') };
  const other = () => {
    form.reset();
    setKind(app ? 'recovery' : 'app');
  };

  return (
    <div className="second-step">
      <h2>{app ? s('codeStepAppTitle') : s('codeStepRecoveryTitle')}</h2>
      <p className="intro" id="code-help">
        {app ? s('codeStepAppHelp') : s('codeStepRecoveryHelp')}
      </p>
      <ErrorSummary report={form.report} labels={labels} />
      <form method="post" noValidate onSubmit={(event) => void form.onSubmit(event)} aria-busy={form.submitting}>
        <CodeField form={form} kind={kind} label={labels.code} describedBy={['code-help']} />
        <p>
          <button type="button" className="link-button" onClick={other}>
            {app ? s('useRecoveryCode') : s('useAppCode')}
          </button>
        </p>
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </form>
      {!app && <p className="switch">{s('codeStepLost')}</p>}
      <p className="switch">
        <button type="button" className="link-button" onClick={onRestart}>
          {s('codeStepRestart')}
        </button>
      </p>
    </div>
  );
}
