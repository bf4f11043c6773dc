import { disableTotpSchema } from '@accounts/validators';
import { useEffect } from 'react';
import { CodeField, useCodeLabel } from '../../components/CodeField';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { trpc } from '../../trpc';
import { CancelLink, type ActionFormProps } from './parts';
import { isStale, useStaleAware } from './stale';
import { useTwoStepText } from './strings';

/** Turning the app off (and with it two-step sign-in, unless passkeys keep it on): the password and a code. */
export function TurnOffForm({ user, onDone, onStale, onCancel }: ActionFormProps) {
  const s = useTwoStepText();
  const { t } = useI18n();
  const codeLabel = useCodeLabel();
  const disable = trpc.twoStep.disableTotp.useMutation();
  const guarded = useStaleAware(onStale);
  const form = useForm({
    name: 'disableTotp',
    initial: { current_password: '', code: '' },
    schema: disableTotpSchema,
    pageShows: isStale,
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async (values) => {
      if (await guarded(() => disable.mutateAsync(values))) onDone({ codes: null });
    },
  });
  const labels = { current_password: t('fieldCurrentPassword'), code: codeLabel('either') };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)} className="danger-zone">
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <CodeField form={form} kind="either" label={labels.code} />
        <SubmitButton
          busy={form.submitting}
          label={s('twoStepTurnOff')}
          busyLabel={s('twoStepTurningOff')}
          danger
        />{' '}
        <CancelLink busy={form.submitting} onCancel={onCancel} />
      </PostForm>
    </>
  );
}
