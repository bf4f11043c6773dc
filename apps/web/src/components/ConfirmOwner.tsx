import { revokeOtherSessionsSchema } from '@accounts/validators';
import { useEffect, type ReactNode } from 'react';
import { useForm } from '../forms/useForm';
import { useSecurityStrings } from '../i18n/security-strings';
import type { SignedInUser } from '../session';
import { CurrentPasswordField } from './CurrentPasswordField';
import { ErrorSummary } from './ErrorSummary';
import { SubmitButton } from './SubmitButton';

/**
 * The confirm step before a change that needs the owner (signing other devices out, removing a
 * passkey): the current password, so that a stolen session alone cannot make it. The password
 * field takes focus; Cancel puts it back where it was.
 */
export function ConfirmOwner({
  user,
  prompt,
  label,
  busyLabel,
  cancelLabel,
  children,
  onConfirm,
  onCancel,
}: {
  user: SignedInUser;
  prompt: string;
  label: string;
  busyLabel: string;
  cancelLabel: string;
  /** More about what the change does, read after the prompt. */
  children?: ReactNode;
  onConfirm: (password: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useSecurityStrings();
  const form = useForm({
    initial: { current_password: '' },
    schema: revokeOtherSessionsSchema,
    whenEmpty: { current_password: 'emptyCurrentPassword' },
    submit: (values) => onConfirm(values.current_password),
  });
  const labels = { current_password: t('fieldCurrentPassword') };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <div className="confirm-owner">
      <p id="confirm-owner-prompt">{prompt}</p>
      {children && <div id="confirm-owner-more">{children}</div>}
      <ErrorSummary report={form.report} labels={labels} />
      <form
        method="post"
        noValidate
        onSubmit={(event) => void form.onSubmit(event)}
        aria-busy={form.submitting}
        aria-describedby={children ? 'confirm-owner-prompt confirm-owner-more' : 'confirm-owner-prompt'}
      >
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SubmitButton busy={form.submitting} label={label} busyLabel={busyLabel} />{' '}
        <button type="button" className="secondary" disabled={form.submitting} onClick={onCancel}>
          {cancelLabel}
        </button>
      </form>
    </div>
  );
}
