import { revokeOtherSessionsSchema } from '@accounts/validators';
import { useEffect, type ReactNode } from 'react';
import { useForm } from '../forms/useForm';
import { useSecurityStrings } from '../i18n/security-strings';
import type { PageFormName } from '../page-forms';
import type { SignedInUser } from '../session';
import { CurrentPasswordField } from './CurrentPasswordField';
import { ErrorSummary } from './ErrorSummary';
import { postFormOf, PostForm } from './PostForm';
import { StepLink } from './StepLink';
import { SubmitButton } from './SubmitButton';

/**
 * The confirm step before a change that needs the owner (signing other devices out, removing a
 * passkey): the current password, so that a stolen session alone cannot make it. The password
 * field takes focus; Cancel puts it back where it was. Without scripts the step is the page's
 * address with it in the query, the form posts to it, and Cancel is a link to the page without it.
 */
export function ConfirmOwner({
  name,
  hidden,
  cancelHref,
  user,
  prompt,
  label,
  busyLabel,
  cancelLabel,
  children,
  onConfirm,
  onCancel,
}: {
  /** The form (PAGE_FORMS), and what it sends besides the password (which session, which passkey). */
  name: PageFormName;
  hidden?: Record<string, string>;
  /** The page without the step: where Cancel leads without scripts. */
  cancelHref: string;
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
    name,
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
      <PostForm
        {...postFormOf(form)}
        hidden={hidden}
        describedBy={children ? 'confirm-owner-prompt confirm-owner-more' : 'confirm-owner-prompt'}
      >
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SubmitButton busy={form.submitting} label={label} busyLabel={busyLabel} />{' '}
        <StepLink
          href={cancelHref}
          className="secondary button-link"
          onOpen={() => {
            if (!form.submitting) onCancel();
          }}
        >
          {cancelLabel}
        </StepLink>
      </PostForm>
    </div>
  );
}
