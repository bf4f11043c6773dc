import { disableTotpSchema, revokeOtherSessionsSchema, type SecondStepMethod } from '@accounts/validators';
import { useEffect, type ReactNode } from 'react';
import { useForm } from '../forms/useForm';
import { useI18n } from '../i18n';
import type { PageFormName } from '../page-forms';
import type { SignedInUser } from '../session';
import { CurrentPasswordField } from './CurrentPasswordField';
import { ErrorSummary } from './ErrorSummary';
import { postFormOf, PostForm } from './PostForm';
import { useCodeLabel } from './CodeField';
import { factorKind, isFactorRecheck, SecondFactorField, useFactorRecheck } from './SecondFactorField';
import { StepLink } from './StepLink';
import { SubmitButton } from './SubmitButton';

/** The password and a second-step code, as the server takes them when it asks for the code. */
const WITH_CODE = revokeOtherSessionsSchema.extend(disableTotpSchema.pick({ code: true }).shape);

/**
 * The confirm step before a change that needs the owner (signing other devices out, removing a
 * passkey): the current password, so that a stolen session alone cannot make it. The password
 * field takes focus; Cancel puts it back where it was. Without scripts the step is the page's
 * address with it in the query, the form posts to it, and Cancel is a link to the page without it.
 * A change that may remove the last second factor (`methods` given) also takes the second factor
 * when the server asks for it (SecondFactorField).
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
  methods,
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
  /** The account's ways of the second step, when the change may ask for one. */
  methods?: readonly SecondStepMethod[];
  /** Sends the change; `code` only once the server asked for the second factor. */
  onConfirm: (password: string, code?: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const codeLabel = useCodeLabel();
  const recheck = useFactorRecheck(name);
  const form = useForm({
    name,
    initial: { current_password: '', code: '' },
    schema: recheck.asked ? WITH_CODE : revokeOtherSessionsSchema,
    // Asked for, the code is no refusal: the field appears as new.
    pageShows: (error) => isFactorRecheck(error),
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async ({ current_password, code }) => {
      try {
        await onConfirm(current_password, recheck.asked ? code : undefined);
      } catch (error) {
        if (!recheck.askedBy(error)) throw error;
        // The password typed stays: only the code is to come.
        form.reset({ current_password });
        return;
      }
      recheck.done();
    },
  });
  const labels = { current_password: t('fieldCurrentPassword'), code: codeLabel(factorKind(methods ?? [], 'code')) };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <div className="confirm-owner danger-zone">
      <p id="confirm-owner-prompt">{prompt}</p>
      {children && <div id="confirm-owner-more">{children}</div>}
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm
        {...postFormOf(form)}
        hidden={hidden}
        describedBy={children ? 'confirm-owner-prompt confirm-owner-more' : 'confirm-owner-prompt'}
      >
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        {methods && <SecondFactorField form={form} recheck={recheck} methods={methods} />}
        <SubmitButton busy={form.submitting} label={label} busyLabel={busyLabel} danger />{' '}
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
