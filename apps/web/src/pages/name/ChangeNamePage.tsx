import { changeNameSchema } from '@accounts/validators';
import { useState } from 'react';
import { ErrorSummary } from '../../components/ErrorSummary';
import { Field } from '../../components/Field';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { useFormResult } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import { useNameText } from './strings';
import { RequireAuth } from '../../RequireAuth';
import { type SignedInUser } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';

export function ChangeNamePage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('nameTitle')}</PageHeading>
      <RequireAuth>{(user) => <ChangeNameForm user={user} />}</RequireAuth>
    </>
  );
}

function ChangeNameForm({ user }: { user: SignedInUser }) {
  const s = useNameText();
  const { t } = useI18n();
  const utils = trpc.useUtils();
  const changeName = trpc.security.changeName.useMutation();
  // Changed without scripts: the page the server answers with says so, as after a submit here.
  const posted = useFormResult<RouterOutputs['security']['changeName']>('changeName');
  const [changed, setChanged] = useState<string | null>(posted?.user.name ?? null);
  const form = useForm({
    name: 'changeName',
    initial: { name: user.name },
    schema: changeNameSchema,
    keep: ['name'],
    whenEmpty: { name: 'emptyName' },
    submit: async (values) => {
      const result = await changeName.mutateAsync(values);
      setChanged(result.user.name);
      await utils.account.me.invalidate();
    },
  });
  const labels = { name: t('fieldName') };
  return (
    <>
      <p className="intro">{s('nameIntro')}</p>
      <div role="status" className={changed ? 'success' : undefined}>
        {changed && <p>{s('nameChanged', { name: changed })}</p>}
      </div>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <Field form={form} name="name" label={labels.name} type="text" autoComplete="name" />
        <SubmitButton busy={form.submitting} label={s('nameSubmit')} busyLabel={s('nameBusy')} />
      </PostForm>
    </>
  );
}
