import { regenerateRecoveryCodesSchema, type SecondStepMethod } from '@accounts/validators';
import { useEffect } from 'react';
import { useCodeLabel } from '../../components/CodeField';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { postFormOf, PostForm } from '../../components/PostForm';
import { factorKind, isFactorRecheck, SecondFactorField, useFactorRecheck } from '../../components/SecondFactorField';
import { SubmitButton } from '../../components/SubmitButton';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { trpc } from '../../trpc';
import { CancelLink, type ActionFormProps } from './parts';
import { isStale, useStaleAware } from './stale';
import { useTwoStepText } from './strings';

/** The password; and a code when the server asks for a second factor. */
const NEW_CODES_ASKED = regenerateRecoveryCodesSchema.required({ code: true });
const NEW_CODES = regenerateRecoveryCodesSchema.omit({ code: true });

/** New recovery codes in place of the ones left. */
export function NewCodesForm({
  user,
  methods,
  onDone,
  onStale,
  onCancel,
}: ActionFormProps & { methods: readonly SecondStepMethod[] }) {
  const s = useTwoStepText();
  const { t } = useI18n();
  const codeLabel = useCodeLabel();
  const regenerate = trpc.twoStep.regenerateRecoveryCodes.useMutation();
  const guarded = useStaleAware(onStale);
  const factor = useFactorRecheck('regenerateRecoveryCodes');
  const form = useForm({
    name: 'regenerateRecoveryCodes',
    initial: { current_password: '', code: '' },
    schema: factor.asked ? NEW_CODES_ASKED : NEW_CODES,
    pageShows: (error) => isStale(error) || isFactorRecheck(error),
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async ({ current_password, code }) => {
      let result;
      try {
        result = await guarded(() => regenerate.mutateAsync({ current_password, ...(factor.asked ? { code } : {}) }));
      } catch (error) {
        if (!factor.askedBy(error)) throw error;
        // Asked, not refused: the password typed stays, the code is to come.
        form.reset({ current_password });
        return;
      }
      if (result) onDone({ codes: result.recoveryCodes });
    },
  });
  const labels = { current_password: t('fieldCurrentPassword'), code: codeLabel(factorKind(methods, 'code')) };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SecondFactorField form={form} recheck={factor} methods={methods} />
        <SubmitButton busy={form.submitting} label={s('newCodesSubmit')} busyLabel={s('newCodesBusy')} />{' '}
        <CancelLink busy={form.submitting} onCancel={onCancel} />
      </PostForm>
    </>
  );
}
