import { useEffect } from 'react';
import { ErrorSummary } from '../../components/ErrorSummary';
import { Field } from '../../components/Field';
import { postFormOf, PostForm } from '../../components/PostForm';
import { StepLink } from '../../components/StepLink';
import { SubmitButton } from '../../components/SubmitButton';
import { useForm } from '../../forms/useForm';
import { trpc } from '../../trpc';
import { isGone, RENAME_SCHEMA, type Passkey } from './passkey';
import { usePasskeysText } from './strings';

/** The rename form in place of the passkey's buttons; the name field takes focus. */
export function RenameForm({
  passkey,
  cancelHref,
  onRenamed,
  onGone,
  onCancel,
}: {
  passkey: Passkey;
  /** The page without the form: where Cancel leads without scripts. */
  cancelHref: string;
  onRenamed: (name: string) => void;
  onGone: (error: unknown) => void;
  onCancel: () => void;
}) {
  const s = usePasskeysText();
  const rename = trpc.passkeys.rename.useMutation();
  const form = useForm({
    name: 'renamePasskey',
    initial: { name: passkey.name },
    schema: RENAME_SCHEMA,
    pageShows: isGone,
    whenEmpty: { name: 'emptyPasskeyName' },
    submit: async ({ name }) => {
      try {
        await rename.mutateAsync({ passkey_id: passkey.id, name });
      } catch (error) {
        if (!isGone(error)) throw error;
        onGone(error);
        return;
      }
      onRenamed(name.trim());
    },
  });
  const labels = { name: s('passkeyNameField') };
  useEffect(() => document.getElementById('name')?.focus(), []);
  return (
    <div className="passkey-rename">
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)} hidden={{ passkey_id: passkey.id }}>
        <Field form={form} name="name" label={labels.name} type="text" autoComplete="off" spellCheck={false} />
        <SubmitButton busy={form.submitting} label={s('passkeySaveName')} busyLabel={s('passkeySavingName')} />{' '}
        <StepLink
          href={cancelHref}
          className="secondary button-link"
          onOpen={() => {
            if (!form.submitting) onCancel();
          }}
        >
          {s('passkeyCancel')}
        </StepLink>
      </PostForm>
    </div>
  );
}
