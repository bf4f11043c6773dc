import { changeNameSchema } from '@accounts/validators';
import { useState } from 'react';
import { ErrorSummary } from '../components/ErrorSummary';
import { Field } from '../components/Field';
import { PageHeading } from '../components/PageHeading';
import { SubmitButton } from '../components/SubmitButton';
import { useForm } from '../forms/useForm';
import { useSecurityStrings } from '../i18n/security-strings';
import { RequireAuth } from '../RequireAuth';
import { type SignedInUser } from '../session';
import { trpc } from '../trpc';

export function ChangeNamePage() {
  const { t } = useSecurityStrings();
  return (
    <>
      <PageHeading>{t('nameTitle')}</PageHeading>
      <RequireAuth>{(user) => <ChangeNameForm user={user} />}</RequireAuth>
    </>
  );
}

function ChangeNameForm({ user }: { user: SignedInUser }) {
  const { s, t } = useSecurityStrings();
  const utils = trpc.useUtils();
  const changeName = trpc.security.changeName.useMutation();
  const [changed, setChanged] = useState<string | null>(null);
  const form = useForm({
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
      <form method="post" noValidate onSubmit={(event) => void form.onSubmit(event)} aria-busy={form.submitting}>
        <Field form={form} name="name" label={labels.name} type="text" autoComplete="name" />
        <SubmitButton busy={form.submitting} label={s('nameSubmit')} busyLabel={s('nameBusy')} />
      </form>
    </>
  );
}
